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

    /// Whether a request with `hostHeader` may be answered.
    public func allows(hostHeader: String?) -> Bool {
        guard let hostHeader, !hostHeader.isEmpty else { return true }
        guard let name = Self.name(ofHost: hostHeader) else { return false }
        if Self.isIPAddress(name) || !name.contains(".") { return true }
        if name.hasSuffix(".localhost") || name.hasSuffix(".local") { return true }
        if name == listeningHost.lowercased() || name == machineName { return true }
        return allowedHosts.contains { allowed in
            allowed == "*" || allowed == name
                || (allowed.hasPrefix(".") && (name.hasSuffix(allowed) || "." + name == allowed))
        }
    }

    /// The name of a `Host` value: without its port and any trailing dot, lower case;
    /// brackets stay off an IPv6 address. Nil for a value that is not `host[:port]`.
    public static func name(ofHost value: String) -> String? {
        var text = Substring(value.lowercased())
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else {
                return nil
            }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if let colon = text.lastIndex(of: ":") {
            guard text[text.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            text = text[..<colon]
        }
        while text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty,
            text.allSatisfy({ $0.isASCIIDigit || $0.isASCIILetter || $0 == "." || $0 == "-" || $0 == "_" })
        else { return nil }
        return String(text)
    }

    /// Whether `name` is an IPv4 address in dotted form or an IPv6 address.
    public static func isIPAddress(_ name: String) -> Bool {
        if name.contains(":") { return name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit)
                    && Int(part).map { $0 <= 255 } == true
            }
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

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
}
