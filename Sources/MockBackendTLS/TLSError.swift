import COpenSSL

/// A TLS set-up failure: a certificate or key that cannot be read or does not fit, or
/// OpenSSL refusing a setting. `message` says what and where, for a person.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// `message`, followed by OpenSSL's reasons taken from this thread's error queue.
    static func openSSL(_ message: String) -> TLSError {
        let reasons = OpenSSLErrorQueue.drain()
        return TLSError(reasons.isEmpty ? message : "\(message): \(reasons.joined(separator: "; "))")
    }
}

/// OpenSSL reports failures on a per-thread queue. Connections share Dispatch threads, so
/// every call that can fail starts with an empty queue and leaves it empty.
enum OpenSSLErrorQueue {
    /// The reasons queued on this thread, oldest first; the queue is empty afterwards.
    static func drain() -> [String] {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { return reasons }
            if let reason = ERR_reason_error_string(code) {
                reasons.append(String(cString: reason))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(cStringBuffer: buffer))
            }
        }
    }

    static func clear() {
        ERR_clear_error()
    }
}

extension String {
    /// The text in a C buffer up to its first NUL.
    init(cStringBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
