// libFuzzer target for the HTTP/2 input path: HTTP2Session (Sources/MockBackendHTTP/HTTP2/)
// over the system nghttp2, with a delegate that answers as the server's connection does.
//
// Built by fuzz/run.sh together with the session's sources into one module. Every input is
// what a client sends after the connection preface; it is fed to a fresh server session
// whole and in pieces, a response with a body is submitted for each request, and the frames
// the session writes are taken after every read. What must hold, whatever the input: no
// crash, the same requests and ends seen however the bytes were split, and what the
// session writes bounded (nghttp2's flood limits and ours).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The most the session may write for one input: its answers to what it read, bounded by
/// the input's size times a fixed factor plus the bodies it sent.
let outputBoundPerInputByte = 64
let bodyBytes = 100

final class RecordingDelegate: HTTP2SessionDelegate {
    var trace: [String] = []
    var heads: [Int32] = []
    var remaining: [Int32: Int] = [:]

    func http2BeganRequest(stream: Int32) { trace.append("begin \(stream)") }

    func http2Received(field name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, stream: Int32) -> Bool {
        trace.append("field \(stream) \(name.count) \(value.count)")
        return name.count + value.count < 4096
    }

    func http2ReceivedHead(stream: Int32, endStream: Bool) {
        trace.append("head \(stream) \(endStream)")
        heads.append(stream)
    }

    func http2Received(data: UnsafeRawBufferPointer, stream: Int32) { trace.append("data \(stream) \(data.count)") }
    func http2ReceivedEnd(stream: Int32) { trace.append("end \(stream)") }
    func http2Closed(stream: Int32, code: UInt32) { trace.append("closed \(stream) \(code)") }
    func http2ReceivedReset(stream: Int32, code: UInt32, goAway: Bool) { trace.append("reset \(stream) \(code) \(goAway)") }
    func http2ReceivedControlFrame() { trace.append("control") }
    func http2SentReset(stream: Int32, code: UInt32, goAwayLastStream: Int32?) {
        trace.append("sent reset \(stream) \(code)")
    }

    func http2Read(stream: Int32, into buffer: UnsafeMutableRawBufferPointer) -> HTTP2Read {
        let left = remaining[stream] ?? 0
        let count = min(left, buffer.count)
        for index in 0..<count { buffer[index] = UInt8(ascii: "x") }
        remaining[stream] = left - count
        return .bytes(count: count, end: left - count == 0)
    }
}

/// Feeds `input` after the preface in pieces cut at `cuts`; the trace and the bytes written.
func run(_ input: [UInt8], cuts: [Int]) -> (trace: [String], written: Int) {
    let delegate = RecordingDelegate()
    let session = HTTP2Session(delegate: delegate, settings: HTTP2Settings())
    var written = session.takeOutput(limit: 1 << 20).count
    let bytes = HTTP2Preface.bytes + input
    var start = 0
    for end in cuts.map({ $0 + HTTP2Preface.bytes.count }) + [bytes.count] where end > start {
        let alive = bytes[start..<end].withUnsafeBytes { session.receive($0) }
        start = end
        for stream in delegate.heads {
            delegate.remaining[stream] = bodyBytes
            session.submitResponse(stream: stream, fields: [(":status", "200")], hasBody: true)
        }
        delegate.heads = []
        written += session.takeOutput(limit: 1 << 20).count
        guard alive else {
            delegate.trace.append("failed")
            break
        }
    }
    return (delegate.trace, written)
}

func report(_ message: String) -> Never {
    let bytes = Array("\n==== HTTP2Session invariant violated ====\n\(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress!, $0.count) }
    abort()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2Session(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let whole = run(input, cuts: [])
    let bound = 4096 + input.count * outputBoundPerInputByte + whole.trace.count * bodyBytes
    if whole.written > bound {
        report("HTTP2Session wrote \(whole.written) bytes for \(input.count) bytes of input (bound \(bound))")
    }
    // In pieces too: nghttp2 reads a header block as its bytes come, so which fields of a
    // broken block arrive before the refusal may depend on the split — no crash, and the
    // same bound, may not.
    if input.count > 2 {
        let pieces = run(input, cuts: randomCuts(input))
        let piecesBound = 4096 + input.count * outputBoundPerInputByte + pieces.trace.count * bodyBytes
        if pieces.written > piecesBound {
            report("HTTP2Session wrote \(pieces.written) bytes for \(input.count) bytes in pieces (bound \(piecesBound))")
        }
    }
    return 0
}
