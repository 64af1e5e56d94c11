import MockBackendHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The answer to a plain HTTP request on the TLS port: 400 problem+json with code
/// `TLS_REQUIRED`, sent without TLS so the client can read why it failed.
enum PlaintextRejection {
    static let response: [UInt8] = {
        let problem = ProblemDetails(
            status: 400, code: "TLS_REQUIRED",
            detail: "This port speaks TLS (HTTPS). Use https://, or the plain HTTP port.")
        guard case .bytes(let body) = problem.response.body else { return [] }
        let head =
            "HTTP/1.1 400 Bad Request\r\nContent-Type: \(MediaType.problemJSON)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }()

    /// Darwin sockets carry SO_NOSIGPIPE from accept instead.
    #if canImport(Glibc)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0
    #endif

    /// Reads what the client sent so far (closing with unread input would send RST and
    /// could destroy the answer in flight), then sends the answer, best effort.
    static func answer(on fileDescriptor: Int32) {
        var discard = [UInt8](repeating: 0, count: 16 * 1024)
        for _ in 0..<4 where recv(fileDescriptor, &discard, discard.count, Int32(MSG_DONTWAIT)) > 0 {}
        response.withUnsafeBytes { bytes in
            _ = send(fileDescriptor, bytes.baseAddress, bytes.count, noSignal)
        }
    }
}
