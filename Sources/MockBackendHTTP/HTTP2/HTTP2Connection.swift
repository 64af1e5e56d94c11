#if canImport(CNghttp2)
import CNghttp2
import Dispatch
import Logging
import MockBackendSupport

/// One client connection speaking HTTP/2 (RFC 9113): h2 after ALPN on the TLS listener,
/// h2c with prior knowledge on the plain one. It takes the socket over from the
/// `HTTPConnection` that recognised the preface, as a WebSocket does after its upgrade.
/// Frames are nghttp2's (`HTTP2Session`); the socket, the loop, the requests, the
/// responder and the stream sinks are the server's own: every stream's request goes to
/// the same responder as an HTTP/1.1 request, and a streamed response writes to an
/// `HTTP2StreamWriter`, each chunk a DATA frame as flow control lets it go.
///
/// A response's shaper (a fault) shapes its stream alone: a cut is RST_STREAM (`CANCEL`,
/// or `INTERNAL_ERROR` with a reset), a pause holds that stream's frames, a blackhole
/// stops it; the other streams of the connection go on.
///
/// Invariant: confined to `queue`, the event loop of the connection it took over, as
/// `HTTPConnection` is; that is what makes the `@unchecked Sendable` sound.
final class HTTP2Connection: SocketChannelOwner, HTTP2SessionDelegate, @unchecked Sendable {
    let id: UInt64
    let queue: DispatchQueue
    let channel: SocketChannel
    let context: ConnectionContext
    private let timer: DeadlineTimer
    private let peerHost: String?
    private let onClosed: (StreamEndReason) -> Void
    private var session: HTTP2Session!
    private var streams: [Int32: HTTP2Stream] = [:]
    private var isClosed = false
    /// GOAWAY is sent: streams finish, then the connection closes.
    private var shuttingDown = false
    /// The frame layer failed (a protocol error): its GOAWAY goes out, then the connection closes.
    private var failed = false
    private var isPumping = false
    /// A pump is queued to run after the loop's work in hand (`pumpAfterThisTurn`).
    private var pumpQueued = false
    /// When the connection last had no stream left, and whether the idle timer is set.
    private var idleSince = ContinuousClock.now
    private var idleTimerArmed = false
    /// The most frame bytes queued on the socket before the session is asked for more.
    private static let outputHighWater = 256 * 1024

    /// `h2` over TLS, `h2c` on the plain listener: what the journals name the protocol.
    var protocolName: String { context.scheme == "https" ? "h2" : "h2c" }

    init(
        id: UInt64, channel: SocketChannel, timer: DeadlineTimer, context: ConnectionContext, peerHost: String?,
        onClosed: @escaping (StreamEndReason) -> Void
    ) {
        self.id = id
        self.channel = channel
        self.timer = timer
        self.context = context
        self.peerHost = peerHost
        self.onClosed = onClosed
        queue = channel.queue
    }

    /// Takes the socket over, with the bytes read so far (the preface first).
    func start(earlyBytes: [UInt8]) {
        session = HTTP2Session(delegate: self, settings: context.configuration.http2Settings(id))
        channel.owner = self
        channel.shaper = nil
        timer.handler = { [weak self] in self?.idleTimeoutFired() }
        becameIdle()
        earlyBytes.withUnsafeBytes { channelReceived($0) }
        channel.resumeReading()
        pump()
    }

    // MARK: - The channel

    func channelReceived(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, !failed else { return }
        if !session.receive(bytes) {
            failed = true
            channel.stopReading()
        }
    }

    func channelFinishedReading() {
        pump()
    }

    func channelPeerClosed() {
        close(reason: .clientClosed)
    }

    func channelDrained() {
        pump()
    }

    func channelFailed(_ reason: StreamEndReason, reset: Bool) {
        close(reason: reason, reset: reset)
    }

    /// Hands the frames nghttp2 has ready to the socket, as far as the socket keeps up;
    /// closes once the session is over and its last frames are out. A flush that drains at
    /// once calls back (`channelDrained`) into this loop, which goes on while the session
    /// has frames.
    func pump() {
        guard !isClosed, !isPumping else { return }
        isPumping = true
        var wrote: Bool
        repeat {
            wrote = false
            while channel.outbound.unsentBytes < Self.outputHighWater {
                let output = session.takeOutput(limit: 64 * 1024)
                guard !output.isEmpty else { break }
                channel.outbound.append(.bytes(output))
                wrote = true
            }
            if wrote { channel.flush() }
        } while wrote && !isClosed && channel.outbound.unsentBytes < Self.outputHighWater
        isPumping = false
        guard !isClosed, channel.outbound.isEmpty else { return }
        if failed || !session.isActive || (shuttingDown && streams.isEmpty) {
            close(reason: shuttingDown ? .serverStopping : .connectionClosed)
        }
    }

    /// Pumps once the loop's work in hand is done. A broadcast writes to every stream of the
    /// connection in one turn (`SinkGroup.send`): their DATA frames then go out in one
    /// socket write rather than one each.
    private func pumpAfterThisTurn() {
        guard !pumpQueued else { return }
        pumpQueued = true
        queue.async { [weak self] in
            guard let self else { return }
            self.pumpQueued = false
            self.pump()
        }
    }

    /// Closes now: every stream's writer is told why, the channel closes, the server
    /// hears of it. Later calls do nothing.
    func close(reason: StreamEndReason, reset: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        channel.close(reset: reset)
        timer.cancel()
        for stream in streams.values { end(stream, reason: reason) }
        if !streams.isEmpty { context.http2StreamsChanged(-streams.count) }
        streams.removeAll()
        onClosed(reason)
    }

    /// Server shutdown (RFC 9113 §6.8): GOAWAY, streams end cleanly, then the connection closes.
    func beginShutdown() {
        guard !isClosed, !shuttingDown else { return }
        shuttingDown = true
        session.goAway(code: NGHTTP2_NO_ERROR.rawValue)
        for stream in streams.values where stream.producing {
            stream.endReason = .serverStopping
            finish(stream)
        }
        pump()
    }

    /// Notes that the connection has no stream from now on, and makes sure the idle timer
    /// will look then. The timer is not moved for every request: it fires when it was set
    /// to, and looks again at the last time the connection became idle (`idleTimeoutFired`).
    private func becameIdle() {
        idleSince = .now
        guard !idleTimerArmed else { return }
        idleTimerArmed = true
        timer.schedule(at: idleSince + context.configuration.idleTimeout)
    }

    /// GOAWAY once the connection has had no stream for the idle timeout; a stream open now
    /// arms the timer again when it closes (`becameIdle`).
    private func idleTimeoutFired() {
        idleTimerArmed = false
        guard !isClosed, streams.isEmpty else { return }
        let due = idleSince + context.configuration.idleTimeout
        if due > .now {
            idleTimerArmed = true
            return timer.schedule(at: due)
        }
        shuttingDown = true
        session.goAway(code: NGHTTP2_NO_ERROR.rawValue)
        pump()
    }

    // MARK: - Requests

    func http2BeganRequest(stream id: Int32) {
        // The frame layer may go on with a read's bytes after a failed write closed the
        // connection; a stream begun then would never be ended, nor uncounted.
        guard !isClosed else { return }
        if streams.updateValue(HTTP2Stream(id: id), forKey: id) == nil { context.http2StreamsChanged(1) }
    }

    func http2Received(field name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, stream id: Int32) -> Bool {
        guard let stream = streams[id] else { return true }
        stream.headerBytes += name.count + value.count + 32
        guard stream.headerBytes <= context.configuration.limits.maxHeaderBytes * 4 else { return false }
        let name = String(decoding: name, as: UTF8.self)
        let value = String(decoding: value, as: UTF8.self)
        switch name {
        case ":method": stream.method = value
        case ":path": stream.path = value
        case ":authority": stream.authority = value
        case ":scheme", ":protocol": break
        // RFC 9113 §8.2.3: cookie fields are joined with "; " for HTTP/1.1 semantics.
        case "cookie": stream.cookies.append(value)
        default: stream.headers.add(name, value)
        }
        return true
    }

    func http2ReceivedHead(stream id: Int32, endStream: Bool) {
        guard let stream = streams[id] else { return }
        if endStream { return dispatch(stream) }
        guard let head = request(of: stream) else { return }
        stream.head = head
        stream.windowStallAfter = context.configuration.http2RequestWindowStall(head)
        if context.responder.streamsBody(of: head) {
            // The body goes on as it comes; the window refills as the responder takes it.
            let body = RequestBodyStream(declaredLength: head.headers["content-length"].flatMap { Int($0) })
            body.onRoom { [weak self, queue] in
                queue.async { [weak self] in self?.bodyHasRoom(stream: id) }
            }
            stream.bodyStream = body
            dispatch(stream)
        }
    }

    /// The responder took a full body stream's bytes: the window gets what was held back.
    private func bodyHasRoom(stream id: Int32) {
        guard !isClosed, let stream = streams[id], stream.withheldBytes > 0 else { return }
        session.consume(stream: id, count: stream.withheldBytes)
        stream.withheldBytes = 0
        pump()
    }

    func http2Received(data: UnsafeRawBufferPointer, stream id: Int32) {
        guard let stream = streams[id] else { return session.consume(stream: id, count: data.count) }
        let before = stream.receivedBodyBytes
        stream.receivedBodyBytes += data.count
        // Within a window stall's bytes the window refills; past them it stays shut.
        var given = stream.windowStallAfter.map { max(0, min(data.count, $0 - before)) } ?? data.count
        if let body = stream.bodyStream, !body.append(Array(data)) || stream.withheldBytes > 0 {
            // Full: the window waits for the responder to take what is buffered.
            stream.withheldBytes += given
            given = 0
        }
        if given > 0 { session.consume(stream: id, count: given) }
        guard !stream.dispatched else { return }
        guard stream.body.count + data.count <= context.configuration.limits.maxBodyBytes else {
            stream.bodyTooLarge = true
            dispatch(stream)
            return
        }
        stream.body.append(contentsOf: data)
    }

    func http2ReceivedEnd(stream id: Int32) {
        guard let stream = streams[id] else { return }
        if let body = stream.bodyStream { return body.finish() }
        dispatch(stream)
    }

    func http2ReceivedReset(stream id: Int32, code: UInt32, goAway: Bool) {
        context.logger.debug(
            goAway ? "h2 GOAWAY received" : "h2 RST_STREAM received",
            metadata: ["connection": "\(self.id)", "stream": "\(id)", "code": "\(code)"])
        if goAway { shuttingDown = true }
        note(goAway ? .goAway : .rstStream, code: code, stream: goAway ? nil : id, lastStream: nil, sentByServer: false)
    }

    func http2SentReset(stream id: Int32, code: UInt32, goAwayLastStream: Int32?) {
        let goAway = goAwayLastStream != nil
        note(
            goAway ? .goAway : .rstStream, code: code, stream: goAway ? nil : id, lastStream: goAwayLastStream,
            sentByServer: true)
    }

    /// Tells the journals of a RST_STREAM on `stream`, or of a GOAWAY (`stream` nil) for
    /// every exchange open on the connection.
    private func note(
        _ frame: HTTP2EndingNote.Frame, code: UInt32, stream id: Int32?, lastStream: Int32?, sentByServer: Bool
    ) {
        let affected = id.map { streams[$0].map { [$0] } ?? [] } ?? Array(streams.values)
        for stream in affected where stream.exchangeID != 0 {
            context.configuration.onHTTP2Ending(
                HTTP2EndingNote(
                    exchangeID: stream.exchangeID, frame: frame, code: code, lastStreamID: lastStream,
                    sentByServer: sentByServer))
        }
    }

    /// At most this many SETTINGS and PING frames a second (RFC 9113 §10.5: a peer that
    /// makes the server answer without end is ended with ENHANCE_YOUR_CALM).
    static let maxControlFramesPerSecond = 1000
    private var controlFrames = (second: ContinuousClock.now, count: 0)

    func http2ReceivedControlFrame() {
        let now = ContinuousClock.now
        if now - controlFrames.second > .seconds(1) { controlFrames = (now, 0) }
        controlFrames.count += 1
        guard controlFrames.count > Self.maxControlFramesPerSecond, !failed else { return }
        context.logger.info("h2 control frame flood: GOAWAY", metadata: ["connection": "\(id)"])
        session.terminate(code: NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
        failed = true
        channel.stopReading()
    }

    func http2Closed(stream id: Int32, code: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        context.http2StreamsChanged(-1)
        end(stream, reason: stream.endReason ?? (code == NGHTTP2_NO_ERROR.rawValue ? .finished : .clientClosed))
        if streams.isEmpty, !shuttingDown { becameIdle() }
    }

    /// Tells the writer and the waiters that `stream` is over, and logs it.
    private func end(_ stream: HTTP2Stream, reason: StreamEndReason) {
        stream.producing = false
        // A body still coming is cut short (nothing, once it has ended).
        stream.bodyStream?.abort()
        stream.writer?.markEnded(reason)
        for waiter in stream.drainWaiters { waiter.body() }
        stream.drainWaiters = []
        if let request = stream.request {
            context.statistics.withLock { $0.requestsServed += 1 }
            context.logger.debug(
                "\(request.method) \(context.configuration.loggedTarget(request)) \(stream.status)",
                metadata: [
                    "connection": "\(id)", "stream": "\(stream.id)", "protocol": "\(protocolName)",
                    "end": "\(stream.writer?.namedEnd ?? reason.description)",
                ])
        }
    }

    /// The request is whole (or too large to be): it goes to the responder.
    private func dispatch(_ stream: HTTP2Stream) {
        guard !stream.dispatched else { return }
        stream.dispatched = true
        guard var request = stream.head ?? request(of: stream) else {
            session.reset(stream: stream.id, code: NGHTTP2_PROTOCOL_ERROR.rawValue)
            return
        }
        request.body = stream.body
        request.bodyStream = stream.bodyStream
        stream.request = request
        stream.startedAt = .now
        let response =
            stream.bodyTooLarge
            ? HTTPParseError.payloadTooLarge(context.configuration.limits.maxBodyBytes).problem.response
            : context.responder.respond(to: request)
        start(response, on: stream)
        pump()
    }

    /// The request of `stream` as far as it has come (its body aside); nil when its head
    /// lacks `:method` or `:path`, or asks for CONNECT. The stream gets its exchange id here.
    /// A request with a body has it built once, when its head is whole (`HTTP2Stream.head`).
    private func request(of stream: HTTP2Stream) -> HTTPRequest? {
        guard let method = stream.method, let path = stream.path, method != "CONNECT" else { return nil }
        if stream.exchangeID == 0 { stream.exchangeID = context.newExchangeID() }
        var headers = HTTPHeaders()
        if let authority = stream.authority, !stream.headers.contains("Host") { headers.add("Host", authority) }
        for (name, value) in stream.headers { headers.add(name, value) }
        if !stream.cookies.isEmpty { headers.add("cookie", stream.cookies.joined(separator: "; ")) }
        var request = HTTPRequest(method: method, target: path, headers: headers)
        request.version = .http2
        request.connectionID = stream.exchangeID
        request.http2ConnectionID = id
        request.streamID = stream.id
        request.remoteAddress = peerHost
        request.scheme = context.scheme
        return request
    }

    // MARK: - Responses

    private func start(_ original: HTTPResponse, on stream: HTTP2Stream) {
        guard streams[stream.id] === stream, let request = stream.request else { return }
        // gzip as over HTTP/1.1: a whole body now, a stream write by write.
        let (response, deflater) = context.configuration.compression.applying(to: original, for: request)
        stream.deflater = deflater
        stream.status = response.status
        stream.shaper = response.shaper
        let bodyless = request.method == "HEAD" || HTTPResponseEncoder.statusForbidsBody(response.status)
        switch response.body {
        case .deferred(let deferred):
            deferred.receive { [weak self, queue, id = stream.id] known in
                queue.async { [weak self] in
                    guard let self, !self.isClosed, let stream = self.streams[id] else { return }
                    self.start(known.isDeferred ? HTTPConnection.notDeferrable : known, on: stream)
                    self.pump()
                }
            }
            return
        case .webSocket:
            let problem = ProblemDetails(
                status: 400, code: "WEBSOCKET_NEEDS_HTTP1",
                detail:
                    "A WebSocket opens over HTTP/1.1; this server does not bootstrap WebSockets over HTTP/2 (RFC 8441)."
            )
            start(problem.response, on: stream)
            return
        case .bytes(let body):
            let length = HTTPResponseEncoder.statusForbidsBody(response.status) ? nil : body.count
            let fields = Self.fields(of: response, contentLength: length)
            shape(
                head: fields, hasBody: !bodyless && !body.isEmpty, status: response.status, headers: response.headers,
                stream: stream)
            if !bodyless, !body.isEmpty { shape(body, kind: .body, events: 0, stream: stream) }
            shape([], kind: .end, events: 0, stream: stream)
        case .stream(let produce):
            let fields = Self.fields(of: response, contentLength: response.declaredLength)
            shape(head: fields, hasBody: !bodyless, status: response.status, headers: response.headers, stream: stream)
            if bodyless {
                shape([], kind: .end, events: 0, stream: stream)
            } else {
                let writer = HTTP2StreamWriter(connection: self, streamID: stream.id, exchangeID: stream.exchangeID)
                stream.writer = writer
                stream.producing = true
                advance(stream)
                produce(writer)
                return
            }
        }
        advance(stream)
    }

    /// The head's fields: `:status`, the response's own (lower case, without the fields
    /// RFC 9113 §8.2.2 forbids), `content-length` when known, `date` and `server`.
    private static func fields(of response: HTTPResponse, contentLength: Int?) -> [(String, String)] {
        var fields: [(String, String)] = [(":status", String(response.status))]
        for (name, value) in response.headers {
            let lower = name.lowercased()
            guard !connectionSpecific.contains(lower), lower != "content-length" || contentLength == nil else {
                continue
            }
            fields.append((lower, value))
        }
        if let contentLength { fields.append(("content-length", String(contentLength))) }
        fields.append(("date", HTTPDate.now))
        fields.append(("server", "mockbackend"))
        return fields
    }

    private static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "date", "server",
    ]

    /// The head through the response's shaper (as the HTTP/1.1 head it would be), so a
    /// fault that delays, refuses or cuts before the head acts on this stream's HEADERS.
    private func shape(
        head fields: [(String, String)], hasBody: Bool, status: Int, headers: HTTPHeaders, stream: HTTP2Stream
    ) {
        guard var shaper = stream.shaper else {
            stream.steps.append(.head(fields: fields, hasBody: hasBody))
            return
        }
        let head = HTTPResponseEncoder.head(
            status: status, headers: headers, version: .http11, framing: .chunked, keepAlive: true)
        var placed = false
        for segment in shaper.shape(head, kind: .head) {
            switch segment {
            case .bytes, .paced:
                if !placed { stream.steps.append(.head(fields: fields, hasBody: hasBody)) }
                placed = true
            default:
                stream.steps.append(.segment(segment))
            }
        }
        stream.shaper = shaper
    }

    /// Body bytes (or the end, `kind` `.end`) through the shaper, if any, into steps.
    private func shape(_ bytes: [UInt8], kind: ResponseWriteKind, events: Int, stream: HTTP2Stream) {
        guard var shaper = stream.shaper else {
            if !bytes.isEmpty, kind == .body { stream.steps.append(.data(bytes)) }
            if events > 0 { stream.steps.append(.segment(.delivered(events: events))) }
            if kind == .end { stream.steps.append(.end) }
            return
        }
        for segment in shaper.shape(bytes, kind: kind) {
            switch segment {
            case .bytes(let piece):
                if kind == .body, !piece.isEmpty { stream.steps.append(.data(piece)) }
            case .paced(var paced):
                while paced.remaining > 0 {
                    if paced.offset > 0 { stream.steps.append(.segment(.pause(milliseconds: paced.pauseMilliseconds))) }
                    let piece = Array(paced.takePiece())
                    if kind == .body { stream.steps.append(.data(piece)) }
                }
            default:
                stream.steps.append(.segment(segment))
            }
        }
        if !shaper.marksEvents, events > 0 { stream.steps.append(.segment(.delivered(events: events))) }
        if kind == .end { stream.steps.append(.end) }
        stream.shaper = shaper
    }

    /// Carries out the stream's steps in order until a pause, a reset or the last.
    private func advance(_ stream: HTTP2Stream) {
        while !stream.paused, !stream.blackholed, streams[stream.id] === stream, !stream.steps.isEmpty {
            // A reset or GOAWAY comes after the bytes before it, not instead of them.
            if stream.unsentBytes > 0, stream.steps.first?.endsStream == true {
                stream.awaitingDrain = true
                return
            }
            let step = stream.steps.removeFirst()
            switch step {
            case .head(let fields, let hasBody):
                guard !stream.headSent else { continue }
                stream.headSent = true
                if !session.submitResponse(stream: stream.id, fields: fields, hasBody: hasBody) {
                    session.reset(stream: stream.id, code: NGHTTP2_INTERNAL_ERROR.rawValue)
                }
            case .data(let bytes):
                stream.outbox.append(contentsOf: bytes)
                stream.queuedBytes += bytes.count
                if stream.unsentBytes > context.configuration.maxUnsentStreamBytes {
                    context.logger.info(
                        "resetting slow h2 stream",
                        metadata: ["connection": "\(id)", "stream": "\(stream.id)", "unsent": "\(stream.unsentBytes)"])
                    reset(stream, code: NGHTTP2_CANCEL.rawValue, reason: .slowReader)
                    return
                }
                resumeIfWaiting(stream)
            case .segment(.bytes), .segment(.paced):
                // Never queued: a shaper's bytes become `.data` steps (`shape`).
                continue
            case .segment(.delivered(let events)):
                if stream.queuedBytes <= stream.sentBytes {
                    stream.writer?.deliveries.noteDelivered(events)
                } else {
                    stream.eventMarks.append((stream.queuedBytes, events))
                }
            case .segment(.dropped(let events)):
                stream.writer?.deliveries.noteDropped(events)
            case .segment(.pause(let milliseconds)):
                stream.paused = true
                queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self, id = stream.id] in
                    guard let self, !self.isClosed, let stream = self.streams[id] else { return }
                    stream.paused = false
                    self.advance(stream)
                    self.pump()
                }
            case .segment(.close(let reset)):
                self.reset(
                    stream, code: reset ? NGHTTP2_INTERNAL_ERROR.rawValue : NGHTTP2_CANCEL.rawValue, reason: .cut)
                return
            case .segment(.blackhole):
                stream.blackholed = true
                stream.steps.removeAll()
            case .segment(.http2(.resetStream(let code))):
                reset(stream, code: code, reason: .cut)
                return
            case .segment(.http2(.goAway(let code, let lastStreamID))):
                stream.steps.removeAll()
                stream.endReason = .cut
                session.goAway(code: code, lastStreamID: lastStreamID)
                // The session ends after its GOAWAY: nothing more is read or sent.
                failed = true
                channel.stopReading()
                return
            case .end:
                stream.ended = true
                stream.producing = false
                resumeIfWaiting(stream)
            }
        }
    }

    private func resumeIfWaiting(_ stream: HTTP2Stream) {
        guard stream.waiting, stream.headSent else { return }
        stream.waiting = false
        session.resume(stream: stream.id)
    }

    /// Ends `stream` with RST_STREAM `code`; its writer learns `reason`.
    private func reset(_ stream: HTTP2Stream, code: UInt32, reason: StreamEndReason) {
        stream.steps.removeAll()
        stream.producing = false
        stream.endReason = reason
        session.reset(stream: stream.id, code: code)
    }

    func http2Read(stream id: Int32, into buffer: UnsafeMutableRawBufferPointer) -> HTTP2Read {
        guard let stream = streams[id] else { return .bytes(count: 0, end: true) }
        let count = stream.take(into: buffer)
        let delivered = stream.takeDeliveredEvents()
        if delivered > 0 { stream.writer?.deliveries.noteDelivered(delivered) }
        if count > 0 { wakeDrainWaiters(stream) }
        if stream.awaitingDrain, stream.unsentBytes == 0 {
            // Called from inside the frame layer's write: the reset is submitted after it.
            stream.awaitingDrain = false
            queue.async { [weak self, id] in
                guard let self, let stream = self.streams[id] else { return }
                self.advance(stream)
                self.pump()
            }
        }
        let end = stream.ended && stream.unsentBytes == 0 && stream.steps.isEmpty
        if count == 0, !end {
            stream.waiting = true
            return .waiting
        }
        return .bytes(count: count, end: end)
    }

    // MARK: - From the stream writers

    func streamWrite(_ bytes: [UInt8], events: Int, stream id: Int32, from writer: HTTP2StreamWriter) {
        guard !isClosed, let stream = streams[id], stream.writer === writer, stream.producing else { return }
        let encoded = stream.deflater?.compress(bytes) ?? bytes
        guard !encoded.isEmpty else { return }
        shape(encoded, kind: .body, events: events, stream: stream)
        advance(stream)
        // A burst of writes to one stream is framed as it comes, not piled up to the slow
        // reader's limit (`maxUnsentStreamBytes`) before the turn ends.
        if stream.unsentBytes >= min(Self.outputHighWater, context.configuration.maxUnsentStreamBytes / 4) {
            pump()
        } else {
            pumpAfterThisTurn()
        }
    }

    func finishStream(streamID id: Int32, from writer: HTTP2StreamWriter) {
        guard !isClosed, let stream = streams[id], stream.writer === writer, stream.producing else { return }
        finish(stream)
        pump()
    }

    private func finish(_ stream: HTTP2Stream) {
        stream.producing = false
        if let trailer = stream.deflater?.finish(), !trailer.isEmpty {
            shape(trailer, kind: .body, events: 0, stream: stream)
        }
        shape([], kind: .end, events: 0, stream: stream)
        advance(stream)
    }

    func abortStream(streamID id: Int32, reset: Bool, from writer: HTTP2StreamWriter) {
        guard !isClosed, let stream = streams[id], stream.writer === writer else { return }
        // What the writer wrote before it aborted goes first, as over HTTP/1.1: a pump a
        // write queued (`pumpAfterThisTurn`) would come after the RST_STREAM.
        if pumpQueued { pump() }
        self.reset(stream, code: reset ? NGHTTP2_INTERNAL_ERROR.rawValue : NGHTTP2_CANCEL.rawValue, reason: .aborted)
        pump()
    }

    func whenDrained(
        streamID id: Int32, toAtMost threshold: Int, progress: @escaping @Sendable () -> Void,
        _ body: @escaping @Sendable () -> Void
    ) {
        guard !isClosed, let stream = streams[id], stream.unsentBytes > threshold else { return body() }
        stream.drainWaiters.append((threshold, progress, body))
    }

    private func wakeDrainWaiters(_ stream: HTTP2Stream) {
        guard !stream.drainWaiters.isEmpty else { return }
        let waiters = stream.drainWaiters
        stream.drainWaiters = []
        for waiter in waiters {
            if stream.unsentBytes <= waiter.threshold {
                queue.async { waiter.body() }
            } else {
                waiter.progress()
                stream.drainWaiters.append(waiter)
            }
        }
    }
}
#endif
