#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which `Host` names the server answers to: the defence against DNS rebinding, where a web
/// page on an attacker's name (`evil.example`) has that name re-resolved to 127.0.0.1 and
/// then calls the server as its own origin. Such a request carries the attacker's name in
/// `Host`; refusing names the server does not know is what stops it.
///
/// Accepted: no `Host` (HTTP/1.0); IP addresses (a page's `Host` is never one under
/// rebinding); names without a dot (`localhost`, a Docker service, a machine on the LAN:
/// no public DNS name a page could be served from has none); `*.localhost` and `*.local`
/// (reserved, never public); the listening host and this machine's name; and the names
/// in `allowedHosts` (`--allowed-hosts`: exact names, `.example.com` for it and every
/// subdomain, `*` for every name). Pure but for reading the machine's name once.
public struct HostPolicy: Sendable, Equatable {
    /// The `--host` the server listens on.
    public var listeningHost: String
    /// `--allowed-hosts`.
    public var allowedHosts: [String]
    /// This machine's name, as `gethostname` gives it.
    public var machineName: String?

    public init(listeningHost: String, allowedHosts: [String] = [], machineName: String? = Self.currentMachineName) {
        self.listeningHost = listeningHost
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
        self.machineName = machineName?.lowercased()
    }

    /// Whether a request with `hostHeader` may be answered. Runs for every request: the
    /// common names (an IP address, a name without a dot) are decided on bytes, early.
    public func allows(hostHeader: String?) -> Bool {
        guard let hostHeader, !hostHeader.isEmpty else { return true }
        guard let name = Self.name(ofHost: hostHeader) else { return false }
        if Self.isIPAddress(name) || !name.utf8.contains(UInt8(ascii: ".")) { return true }
        if name.hasSuffix(".localhost") || name.hasSuffix(".local") { return true }
        if name == listeningHost.lowercased() || name == machineName { return true }
        return allowedHosts.contains { allowed in
            allowed == "*" || allowed == name
                || (allowed.hasPrefix(".") && (name.hasSuffix(allowed) || "." + name == allowed))
        }
    }

    /// The name of a `Host` value: without its port and any trailing dot, lower case;
    /// brackets stay off an IPv6 address. Nil for a value that is not `host[:port]`, and for
    /// one with a byte outside ASCII (RFC 9110 §7.2: a host is ASCII, an IDN in its
    /// `xn--` form).
    public static func name(ofHost value: String) -> String? {
        guard value.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let bytes = value.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let rest = bytes[(close + 1)...]
            guard rest.isEmpty || (rest.first == UInt8(ascii: ":") && rest.dropFirst().allSatisfy(isDigit)) else {
                return nil
            }
            return String(decoding: bytes[1..<close], as: UTF8.self)
        }
        var end = bytes.endIndex
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            guard bytes[(colon + 1)...].allSatisfy(isDigit) else { return nil }
            end = colon
        }
        while end > 0, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        let name = bytes[..<end]
        guard !name.isEmpty,
            name.allSatisfy({
                isDigit($0) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: ".")
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            })
        else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// Whether `name` is an IPv4 address in dotted form (four numbers of at most three
    /// digits, each at most 255) or an IPv6 address (hex digits, colons and dots).
    public static func isIPAddress(_ name: String) -> Bool {
        let bytes = name.utf8
        if bytes.contains(UInt8(ascii: ":")) {
            return bytes.allSatisfy {
                isDigit($0) || (($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "f"))
                    || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
            }
        }
        var dots = 0
        var digits = 0
        var value = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                dots += 1
                digits = 0
                value = 0
            } else if isDigit(byte) {
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return dots == 3 && digits > 0
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Whether `origin` (`scheme://host[:port]`) is the origin of a request that came with
    /// `hostHeader`: the same host and port, a scheme's default port written or not.
    public static func isSameOrigin(_ origin: String, hostHeader: String?) -> Bool {
        guard let hostHeader, let schemeEnd = origin.firstRange(of: "://") else { return false }
        let scheme = origin[..<schemeEnd.lowerBound].lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        func authority(_ text: Substring) -> String {
            let lowered = text.lowercased()
            return lowered.hasSuffix(defaultPort) ? String(lowered.dropLast(defaultPort.count)) : lowered
        }
        return authority(origin[schemeEnd.upperBound...]) == authority(Substring(hostHeader))
    }

    /// This machine's name, read once.
    public static let currentMachineName: String? = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }()
}
