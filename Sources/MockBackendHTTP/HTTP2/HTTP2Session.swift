#if canImport(CNghttp2)
import CNghttp2

/// What an `HTTP2Session` reports as it reads frames, and asks for as it writes them.
/// Called on the connection's queue, from inside `receive` and `takeOutput`.
protocol HTTP2SessionDelegate: AnyObject {
    /// A request's header block began on `stream`.
    func http2BeganRequest(stream: Int32)
    /// One field of that block; false refuses it (the stream is reset with PROTOCOL_ERROR).
    func http2Received(field name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, stream: Int32) -> Bool
    /// The request's header block is complete; `endStream` when no body follows.
    func http2ReceivedHead(stream: Int32, endStream: Bool)
    /// Request body bytes.
    func http2Received(data: UnsafeRawBufferPointer, stream: Int32)
    /// The request body ended.
    func http2ReceivedEnd(stream: Int32)
    /// The stream closed, with the RST_STREAM or GOAWAY code that closed it (0: none).
    func http2Closed(stream: Int32, code: UInt32)
    /// The client reset a stream or sent GOAWAY (`stream` 0), with this code.
    func http2ReceivedReset(stream: Int32, code: UInt32, goAway: Bool)
    /// The session sent a RST_STREAM for `stream`, or a GOAWAY (`stream` 0, with the last
    /// stream id), with this code: ours or one nghttp2 sent itself.
    func http2SentReset(stream: Int32, code: UInt32, goAwayLastStream: Int32?)
    /// A SETTINGS (not an acknowledgement) or PING frame came: what floods are made of.
    func http2ReceivedControlFrame()
    /// The response body's next bytes for `stream`, copied into `buffer`.
    func http2Read(stream: Int32, into buffer: UnsafeMutableRawBufferPointer) -> HTTP2Read
}

/// What a response body has for the frame being written.
enum HTTP2Read {
    /// `count` bytes copied; `end` when they are the body's last.
    case bytes(count: Int, end: Bool)
    /// Nothing yet: the stream waits until `resume` (nghttp2's deferred data).
    case waiting
}

/// One HTTP/2 connection's frame layer: nghttp2's server session driven sans-IO — bytes
/// in through `receive`, bytes out through `takeOutput` — with HPACK, stream states and
/// flow control nghttp2's. The socket, the loop and the streams stay the connection's.
/// Confined to the connection's queue, as the connection is.
final class HTTP2Session {
    private var session: OpaquePointer?
    private unowned let delegate: any HTTP2SessionDelegate

    /// Guards against the floods RFC 9113 §10.5 names: at most this many CONTINUATION
    /// frames for one header block (CVE-2024-27316), this many SETTINGS a connection may
    /// send unacknowledged, this many resets a second before GOAWAY (CVE-2023-44487).
    static let maxContinuations = 8
    static let maxSettingsEntries = 32
    static let resetBurst: UInt64 = 200
    static let resetsPerSecond: UInt64 = 100

    init(delegate: any HTTP2SessionDelegate, settings: HTTP2Settings) {
        self.delegate = delegate
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_max_continuations(option, Self.maxContinuations)
        nghttp2_option_set_max_settings(option, Self.maxSettingsEntries)
        nghttp2_option_set_stream_reset_rate_limit(option, Self.resetBurst, Self.resetsPerSecond)
        nghttp2_option_set_max_outbound_ack(option, 1000)
        nghttp2_option_set_max_deflate_dynamic_table_size(option, 4096)
        // The connection gives request body bytes back to the window itself (`consume`),
        // so a `window_stall` can keep it shut.
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_session_server_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        var entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: settings.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialWindowSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// Reads `bytes`; false when the connection must end. A GOAWAY says why: nghttp2's own
    /// for the errors it answers itself (a frame too large, a bad preface), else
    /// `ENHANCE_YOUR_CALM` for a flood (too many CONTINUATION frames, unread SETTINGS or
    /// PING acknowledgements) and `PROTOCOL_ERROR` for the rest.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return true }
        let result = nghttp2_session_mem_recv(session, base, bytes.count)
        guard result < 0 else { return true }
        let flooded = [NGHTTP2_ERR_FLOODED.rawValue, NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue].contains(
            Int32(result))
        terminate(code: flooded ? NGHTTP2_ENHANCE_YOUR_CALM.rawValue : NGHTTP2_PROTOCOL_ERROR.rawValue)
        return false
    }

    /// GOAWAY with `code` and the end of the session (nothing if one was sent already).
    func terminate(code: UInt32) {
        nghttp2_session_terminate_session(session, code)
    }

    /// Frames ready to send, up to about `limit` bytes (nghttp2 hands them out in pieces).
    func takeOutput(limit: Int) -> [UInt8] {
        var output: [UInt8] = []
        while output.count < limit {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &pointer)
            guard count > 0, let pointer else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
        }
        return output
    }

    /// Whether the session has anything more to read or write: when neither, it is over.
    var isActive: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    /// Submits a response head; `hasBody` gives it a body read from the delegate.
    @discardableResult
    func submitResponse(stream: Int32, fields: [(String, String)], hasBody: Bool) -> Bool {
        HTTP2HeaderVector.with(fields) { vector in
            var provider = nghttp2_data_provider()
            provider.read_callback = Self.readBody
            if hasBody {
                return nghttp2_submit_response(session, stream, vector.baseAddress, vector.count, &provider) == 0
            }
            return nghttp2_submit_response(session, stream, vector.baseAddress, vector.count, nil) == 0
        }
    }

    /// A waiting body has bytes (or its end) again.
    func resume(stream: Int32) {
        nghttp2_session_resume_data(session, stream)
    }

    /// RST_STREAM with `code` (RFC 9113 §7).
    func reset(stream: Int32, code: UInt32) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code)
    }

    /// GOAWAY with `code`, naming `lastStreamID` (the last stream processed, when nil).
    func goAway(code: UInt32, lastStreamID: Int32? = nil) {
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, code, nil, 0)
    }

    /// The last stream the server has processed (GOAWAY's default).
    var lastProcessedStream: Int32 { nghttp2_session_get_last_proc_stream_id(session) }

    /// Gives `count` body bytes of `stream` back to its window and the connection's: window
    /// updates follow as nghttp2 sees fit. (Bytes nghttp2 ignores it gives back itself.)
    func consume(stream: Int32, count: Int) {
        nghttp2_session_consume(session, stream, count)
    }

    // MARK: - nghttp2's callbacks

    private static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
    }

    private static let readBody: nghttp2_data_source_read_callback = {
        _, stream, buffer, length, flags, _, userData in
        let session = HTTP2Session.owner(userData)
        switch session.delegate.http2Read(
            stream: stream, into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
        {
        case .waiting:
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        case .bytes(let count, let end):
            if end { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
    }

    private static func install(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            else { return 0 }
            HTTP2Session.owner(userData).delegate.http2BeganRequest(stream: frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            else { return 0 }
            let accepted = HTTP2Session.owner(userData).delegate.http2Received(
                field: UnsafeRawBufferPointer(start: name, count: nameLength),
                value: UnsafeRawBufferPointer(start: value, count: valueLength), stream: frame.pointee.hd.stream_id)
            return accepted ? 0 : Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            let delegate = HTTP2Session.owner(userData).delegate
            let header = frame.pointee.hd
            let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            switch UInt32(header.type) {
            case NGHTTP2_HEADERS.rawValue where frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST:
                delegate.http2ReceivedHead(stream: header.stream_id, endStream: endStream)
            case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
                if endStream { delegate.http2ReceivedEnd(stream: header.stream_id) }
            case NGHTTP2_RST_STREAM.rawValue:
                delegate.http2ReceivedReset(
                    stream: header.stream_id, code: frame.pointee.rst_stream.error_code, goAway: false)
            case NGHTTP2_GOAWAY.rawValue:
                delegate.http2ReceivedReset(stream: 0, code: frame.pointee.goaway.error_code, goAway: true)
            case NGHTTP2_SETTINGS.rawValue, NGHTTP2_PING.rawValue:
                if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { delegate.http2ReceivedControlFrame() }
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            let delegate = HTTP2Session.owner(userData).delegate
            switch UInt32(frame.pointee.hd.type) {
            case NGHTTP2_RST_STREAM.rawValue:
                delegate.http2SentReset(
                    stream: frame.pointee.hd.stream_id, code: frame.pointee.rst_stream.error_code,
                    goAwayLastStream: nil)
            case NGHTTP2_GOAWAY.rawValue:
                delegate.http2SentReset(
                    stream: 0, code: frame.pointee.goaway.error_code,
                    goAwayLastStream: frame.pointee.goaway.last_stream_id)
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, userData in
            HTTP2Session.owner(userData).delegate.http2Received(
                data: UnsafeRawBufferPointer(start: data, count: length), stream: stream)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, code, userData in
            HTTP2Session.owner(userData).delegate.http2Closed(stream: stream, code: code)
            return 0
        }
    }
}
#endif
