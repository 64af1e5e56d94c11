import MockBackendHTTP
import MockBackendSupport

/// One proxied exchange as it is recorded: the request as the client sent it, and what the
/// upstream answered, each piece with the time it came. Filled from the upstream's loop
/// and the client's; read when the recording is turned into mappings
/// (`RecordedMappings`). Secrets are taken out then, never stored whole past that point.
final class RecordedExchange: Sendable {
    /// What the answer was.
    enum Kind: Sendable, Equatable {
        case plain
        case eventStream
        case webSocket
    }

    /// How the upstream ended the answer.
    enum Ending: Sendable, Equatable {
        /// The body's end (or a WebSocket's closing handshake).
        case complete
        /// FIN before the body's end.
        case closed
        /// RST.
        case reset
    }

    /// A WebSocket message from the upstream.
    struct Message: Sendable, Equatable {
        var offset: Duration
        var text: String?
        var binary: [UInt8]?
    }

    /// Everything recorded so far.
    struct Tape: Sendable {
        var status: Int?
        var headers = HTTPHeaders()
        var kind = Kind.plain
        /// Body bytes as they came, each with its time after the head.
        var chunks: [(offset: Duration, bytes: [UInt8])] = []
        var bodyBytes = 0
        /// Bytes the bound left out (`maximumBytes`).
        var truncated = false
        /// Nil while the answer is still open.
        var ending: Ending?
        var messages: [Message] = []
        var close: (code: Int, reason: String)?
        /// When the head came: what every offset counts from.
        var headAt: ContinuousClock.Instant?

        /// Time since the head arrived.
        var elapsed: Duration { headAt.map { ContinuousClock.now - $0 } ?? .zero }
    }

    let method: String
    let target: String
    let requestHeaders: HTTPHeaders
    /// Its place in the recording.
    let sequence: Int
    private let tape = LockedValue(Tape())

    /// A recorded body stops growing here: a stub played from it must stay loadable.
    static let maximumBytes = StubEventStream.maximumBytes

    init(request: HTTPRequest, sequence: Int) {
        method = request.method
        target = request.target
        requestHeaders = request.headers
        self.sequence = sequence
    }

    var snapshot: Tape { tape.current }

    func noteHead(status: Int, headers: HTTPHeaders, kind: Kind) {
        tape.withLock { tape in
            tape.headAt = .now
            tape.status = status
            tape.headers = headers
            tape.kind = kind
        }
    }

    func noteBody(_ bytes: [UInt8]) {
        tape.withLock { tape in
            let offset = tape.elapsed
            guard tape.bodyBytes + bytes.count <= Self.maximumBytes else {
                tape.truncated = true
                return
            }
            tape.bodyBytes += bytes.count
            tape.chunks.append((offset, bytes))
        }
    }

    func noteMessage(text: String?, binary: [UInt8]?) {
        tape.withLock { tape in
            let offset = tape.elapsed
            let size = text?.utf8.count ?? binary?.count ?? 0
            guard tape.bodyBytes + size <= Self.maximumBytes else {
                tape.truncated = true
                return
            }
            tape.bodyBytes += size
            tape.messages.append(Message(offset: offset, text: text, binary: binary))
        }
    }

    func noteClose(code: Int, reason: String) {
        tape.withLock { $0.close = (code, reason) }
    }

    func noteEnding(_ ending: Ending) {
        tape.withLock { tape in
            if tape.ending == nil { tape.ending = ending }
        }
    }
}

extension RecordedExchange.Ending {
    /// How an upstream exchange ended, as a recording keeps it.
    init(_ ending: UpstreamEnding) {
        switch ending {
        case .complete: self = .complete
        case .failed(.reset): self = .reset
        case .failed: self = .closed
        }
    }
}
