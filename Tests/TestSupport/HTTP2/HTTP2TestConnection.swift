#if canImport(CNghttp2)
import CNghttp2
import Foundation
import MockBackendHTTP
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 client connection for tests, on libnghttp2's client session: h2c with prior
/// knowledge, or h2 over TLS (`TLSTestSocket`, ALPN `h2`). A thread of its own reads the
/// socket, so streams fill while a test waits; every call into nghttp2 and every write
/// happens under `lock`. Streams are opened with `submit` and read with `stream(_:)`.
///
/// It behaves as client libraries do on the points tests look at: DATA that arrived before
/// a RST_STREAM is kept, `reset(stream:)` ends one stream (RST_STREAM CANCEL, as a browser
/// closing an EventSource) and leaves the connection to the others, and a GOAWAY ends the
/// streams the server did not process.
final class HTTP2TestConnection: @unchecked Sendable {
    /// How a stream ended.
    enum End: Equatable, Sendable {
        /// END_STREAM: the answer is complete.
        case endStream
        /// RST_STREAM from the server, with its code.
        case reset(UInt32)
        /// The connection ended first: after a GOAWAY with its code, or without one (`nil`).
        case connectionLost(goAway: UInt32?, transportReset: Bool)
    }

    /// What arrived on one stream so far.
    struct StreamState: Sendable {
        var status: Int?
        var fields: [(String, String)] = []
        var headComplete = false
        var body: [UInt8] = []
        var end: End?
    }

    private let lock = NSLock()
    private let socket: TLSTestSocket
    private var session: OpaquePointer?
    private var streams: [Int32: StreamState] = [:]
    /// Request bodies on their way: what is still to send, and whether more is to come.
    private var requestBodies: [Int32: (bytes: [UInt8], offset: Int, more: Bool)] = [:]
    private var bodySent: [Int32: Int] = [:]
    private var goAwayCode: UInt32?
    private var isOpen = true

    /// Connects to 127.0.0.1:`port`, over TLS when `tls`, and sends the connection preface.
    init(port: Int, tls: Bool) throws {
        socket = try TLSTestSocket(port: port, tls: tls, alpn: "h2")
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        // A large window, so the server's flow control never holds a test's stream back.
        var entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 24)
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 26)
        lock.withLock { flush() }
        let thread = Thread { [self] in readLoop() }
        thread.start()
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// The code of the GOAWAY the server sent, once it has.
    var receivedGoAway: UInt32? {
        lock.withLock { goAwayCode }
    }

    /// Whether new streams can still be opened on this connection.
    var isUsable: Bool {
        lock.withLock { isOpen && goAwayCode == nil }
    }

    /// Opens a stream with `fields` (pseudo-header fields first) and `body`; its id. With
    /// `moreBody` the body goes on with `sendBody`.
    func submit(fields: [(String, String)], body: [UInt8]?, moreBody: Bool = false) throws -> Int32 {
        try lock.withLock {
            guard isOpen else { throw RawClientErrorForHTTP2.connectionClosed }
            let lowered = fields.map { ($0.0.lowercased(), $0.1) }
            let stream = HTTP2HeaderVector.with(lowered) { vector -> Int32 in
                guard let body else {
                    return nghttp2_submit_request(session, nil, vector.baseAddress, vector.count, nil, nil)
                }
                var provider = nghttp2_data_provider()
                provider.read_callback = Self.readRequestBody
                let id = nghttp2_submit_request(session, nil, vector.baseAddress, vector.count, &provider, nil)
                if id > 0 { requestBodies[id] = (body, 0, moreBody) }
                return id
            }
            guard stream > 0 else { throw RawClientErrorForHTTP2.submitFailed(stream) }
            streams[stream] = StreamState()
            flush()
            return stream
        }
    }

    /// More of the body of `stream` (opened with `moreBody`); `end` when it is the last.
    func sendBody(stream id: Int32, _ bytes: [UInt8], end: Bool) {
        lock.withLock {
            guard isOpen, var pending = requestBodies[id] else { return }
            pending.bytes = Array(pending.bytes[pending.offset...]) + bytes
            pending.offset = 0
            pending.more = !end
            requestBodies[id] = pending
            nghttp2_session_resume_data(session, id)
            flush()
        }
    }

    /// How many body bytes of `stream` have gone into DATA frames so far.
    func bodyBytesSent(stream id: Int32) -> Int {
        lock.withLock { bodySent[id] ?? 0 }
    }

    /// What has arrived on `stream` so far.
    func stream(_ id: Int32) -> StreamState {
        lock.withLock { streams[id] ?? StreamState() }
    }

    /// Ends `stream` from this side with RST_STREAM `code` (CANCEL by default).
    func reset(stream id: Int32, code: UInt32 = NGHTTP2_CANCEL.rawValue) {
        lock.withLock {
            guard isOpen, streams[id]?.end == nil else { return }
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, code)
            flush()
        }
    }

    /// Sends GOAWAY NO_ERROR and shuts the socket down. The reading thread sees that at
    /// once, closes the socket and ends; nothing waits for it here, so a test's task never
    /// blocks on it.
    func close() {
        lock.withLock {
            guard isOpen else { return }
            nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
            flush()
            isOpen = false
            socket.shutdown()
        }
    }

    // MARK: - Reading and writing

    private func readLoop() {
        defer { socket.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            guard lock.withLock({ isOpen }) else { return }
            guard socket.waitReadable(milliseconds: 50) else { continue }
            let outcome = lock.withLock { () -> Bool in
                guard isOpen else { return false }
                while true {
                    switch socket.read(into: &buffer) {
                    case .bytes(let count):
                        let result = buffer.withUnsafeBufferPointer {
                            nghttp2_session_mem_recv(session, $0.baseAddress, count)
                        }
                        if result < 0 {
                            lose(transportReset: false)
                            return false
                        }
                    case .wouldBlock:
                        flush()
                        return true
                    case .closed(let reset):
                        lose(transportReset: reset)
                        return false
                    }
                }
            }
            if !outcome { return }
        }
    }

    /// The connection is gone: every stream not yet ended ends with it. Under `lock`.
    private func lose(transportReset: Bool) {
        isOpen = false
        for (id, state) in streams where state.end == nil {
            streams[id]?.end = .connectionLost(goAway: goAwayCode, transportReset: transportReset)
        }
    }

    /// Writes what nghttp2 has to send. Under `lock`.
    private func flush() {
        while isOpen {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &pointer)
            guard count > 0, let pointer else { return }
            if !socket.write(UnsafeRawBufferPointer(start: pointer, count: count)) {
                lose(transportReset: true)
                return
            }
        }
    }

    // MARK: - nghttp2's callbacks (called under `lock`, from `mem_recv` or `mem_send`)

    private static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2TestConnection {
        Unmanaged<HTTP2TestConnection>.fromOpaque(userData!).takeUnretainedValue()
    }

    private static let readRequestBody: nghttp2_data_source_read_callback = {
        _, stream, buffer, length, flags, _, userData in
        let connection = HTTP2TestConnection.owner(userData)
        guard let pending = connection.requestBodies[stream], let buffer else {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(length, pending.bytes.count - pending.offset)
        // Nothing to send yet, more to come: `sendBody` resumes the stream.
        if count == 0, pending.more { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
        pending.bytes.withUnsafeBufferPointer {
            buffer.update(from: $0.baseAddress! + pending.offset, count: count)
        }
        connection.requestBodies[stream]?.offset += count
        connection.bodySent[stream, default: 0] += count
        if pending.offset + count == pending.bytes.count, !pending.more {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            connection.requestBodies[stream] = nil
        }
        return count
    }

    private static func install(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
            let connection = HTTP2TestConnection.owner(userData)
            let stream = frame.pointee.hd.stream_id
            let name = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let value = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            if name == ":status" {
                let status = Int(value) ?? 0
                // An interim (1xx) head is not the answer's.
                if status >= 200 { connection.streams[stream]?.status = status }
            } else if connection.streams[stream]?.status != nil {
                connection.streams[stream]?.fields.append((name, value))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            let connection = HTTP2TestConnection.owner(userData)
            let header = frame.pointee.hd
            switch UInt32(header.type) {
            case NGHTTP2_HEADERS.rawValue:
                if connection.streams[header.stream_id]?.status != nil {
                    connection.streams[header.stream_id]?.headComplete = true
                }
            case NGHTTP2_GOAWAY.rawValue:
                connection.goAwayCode = frame.pointee.goaway.error_code
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, userData in
            let connection = HTTP2TestConnection.owner(userData)
            connection.streams[stream]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, code, userData in
            let connection = HTTP2TestConnection.owner(userData)
            guard connection.streams[stream]?.end == nil else { return 0 }
            if code == NGHTTP2_NO_ERROR.rawValue {
                connection.streams[stream]?.end = .endStream
            } else if code == NGHTTP2_REFUSED_STREAM.rawValue, connection.goAwayCode != nil {
                connection.streams[stream]?.end = .connectionLost(goAway: connection.goAwayCode, transportReset: false)
            } else {
                connection.streams[stream]?.end = .reset(code)
            }
            return 0
        }
    }
}

/// Why an HTTP/2 test connection refused a request.
enum RawClientErrorForHTTP2: Error {
    case connectionClosed
    case submitFailed(Int32)
}
#endif
