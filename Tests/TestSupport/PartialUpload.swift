import Dispatch
import MockBackendTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request whose body a test sends in parts, over whatever the app is reached by: over
/// HTTP/1.1 a declared `Content-Length` and the bytes as they go on one connection, over
/// HTTP/2 DATA frames on one stream as flow control lets them go.
public final class PartialUpload {
    private enum Wire {
        case http1(RawHTTPClient)
        #if canImport(CNghttp2)
        case http2(HTTP2StreamClient)
        #endif
    }

    private let wire: Wire

    /// Starts `method target` with a body of `contentLength` bytes on `server`.
    public init(on server: any AppUnderTest, _ method: String, _ target: String, contentLength: Int) async throws {
        #if canImport(CNghttp2)
        if let http2 = server as? HTTP2App {
            wire = .http2(try await http2.startUpload(method, target, contentLength: contentLength))
            return
        }
        #endif
        guard let plain = server as? RunningServer else { fatalError("an upload needs a socket: \(server)") }
        let client = try plain.connect()
        try client.send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(contentLength)\r\n\r\n")
        wire = .http1(client)
    }

    /// Sends the next part of the body.
    public func send(_ bytes: [UInt8]) throws {
        switch wire {
        case .http1(let client): try client.send(bytes)
        #if canImport(CNghttp2)
        case .http2(let stream): stream.sendBody(bytes, end: false)
        #endif
        }
    }

    /// Sends the last part and reads the answer.
    public func finish(_ bytes: [UInt8]) async throws -> RawResponse {
        switch wire {
        case .http1(let client):
            try client.send(bytes)
            return try await client.readResponse()
        #if canImport(CNghttp2)
        case .http2(let stream):
            stream.sendBody(bytes, end: true)
            return try await stream.readResponse()
        #endif
        }
    }

    /// Waits, without sending more of the body, until what has arrived of the answer
    /// contains `text`: an answer the server gave before the body ended.
    public func receive(untilContains text: String) async throws {
        let client: any StreamClient =
            switch wire {
            case .http1(let client): client
            #if canImport(CNghttp2)
            case .http2(let stream): stream
            #endif
            }
        try await client.receive(untilContains: text, timeout: .seconds(30))
    }

    /// The client goes away mid-body: the connection closes (HTTP/1.1), the stream is reset
    /// (HTTP/2).
    public func abandon() {
        switch wire {
        case .http1(let client): client.close()
        #if canImport(CNghttp2)
        case .http2(let stream): stream.close()
        #endif
        }
    }

    /// Sends up to `total` bytes of `b` as fast as the server takes them; returns how many
    /// went before nothing more could go for `stallAfter`. Waits off the test's own thread.
    public func sendUntilStalled(total: Int, stallAfter: Duration) async -> Int {
        switch wire {
        case .http1(let client):
            let fd = client.fileDescriptor
            return await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
                DispatchQueue.global().async {
                    done.resume(returning: Self.sendUntilStalled(fd, total: total, stallAfter: stallAfter))
                }
            }
        #if canImport(CNghttp2)
        case .http2(let stream):
            stream.sendBody([UInt8](repeating: UInt8(ascii: "b"), count: total), end: true)
            var sent = stream.bodyBytesSent
            var lastProgress = ContinuousClock.now
            while sent < total, ContinuousClock.now - lastProgress < stallAfter {
                try? await Task.sleep(for: .milliseconds(5))
                if stream.bodyBytesSent > sent {
                    sent = stream.bodyBytesSent
                    lastProgress = .now
                }
            }
            return sent
        #endif
        }
    }

    private static func sendUntilStalled(_ fd: Int32, total: Int, stallAfter: Duration) -> Int {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let piece = [UInt8](repeating: UInt8(ascii: "b"), count: 64 * 1024)
        var sent = 0
        var lastProgress = ContinuousClock.now
        while sent < total, ContinuousClock.now - lastProgress < stallAfter {
            let count = piece.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.send(fd, buffer.baseAddress, min(buffer.count, total - sent), Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(fd, buffer.baseAddress, min(buffer.count, total - sent), 0)
                #endif
            }
            if count > 0 {
                sent += count
                lastProgress = .now
            } else {
                usleep(5_000)
            }
        }
        return sent
    }
}
