#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The remote address of a connected socket.
package enum PeerAddress {
    /// For log lines: `127.0.0.1:54321`, `[::1]:54321`; `unknown` when it cannot be read.
    package static func of(_ fileDescriptor: Int32) -> String {
        guard let (host, port) = parts(of: fileDescriptor) else { return "unknown" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The address without its port (`127.0.0.1`, `::1`), as `X-Forwarded-For` names it.
    package static func host(of fileDescriptor: Int32) -> String? {
        parts(of: fileDescriptor)?.host
    }

    private static func parts(of fileDescriptor: Int32) -> (host: String, port: UInt16)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fileDescriptor, $0, &length) == 0 }
        }
        guard found else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                    return (Self.string(text), UInt16(bigEndian: address.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var ip = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                    return (Self.string(text), UInt16(bigEndian: address.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
