import MockBackendHTTP

/// Where a proxied request carries the session token the overlay acts on (`--proxy-token`):
/// `bearer` (`Authorization: Bearer …`, the default), `header:NAME`, `cookie:NAME` or
/// `query:NAME`.
public enum ProxyTokenSource: Sendable, Equatable, CustomStringConvertible {
    case bearer
    case header(String)
    case cookie(String)
    case query(String)

    /// Parses the option's value; nil for anything else.
    public init?(argument: String) {
        if argument.lowercased() == "bearer" {
            self = .bearer
            return
        }
        guard let colon = argument.firstIndex(of: ":") else { return nil }
        let name = String(argument[argument.index(after: colon)...])
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != ":" }) else { return nil }
        switch argument[..<colon].lowercased() {
        case "header": self = .header(name)
        case "cookie": self = .cookie(name)
        case "query": self = .query(name)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .bearer: "bearer"
        case .header(let name): "header:\(name)"
        case .cookie(let name): "cookie:\(name)"
        case .query(let name): "query:\(name)"
        }
    }

    /// The token `request` carries, if any.
    package func token(in request: HTTPRequest) -> String? {
        let value: String?
        switch self {
        case .bearer:
            guard let authorization = request.headers["Authorization"],
                authorization.lowercased().hasPrefix("bearer ")
            else { return nil }
            value = String(authorization.dropFirst("bearer ".count).trimmingSpaces())
        case .header(let name):
            value = request.headers[name].map { String($0.trimmingSpaces()) }
        case .cookie(let name):
            value = Self.cookies(in: request.headers).first { $0.name == name }?.value
        case .query(let name):
            value = request.queryValue(name)
        }
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// The `name=value` pairs of every `Cookie` field.
    static func cookies(in headers: HTTPHeaders) -> [(name: String, value: String)] {
        headers.values(for: "Cookie").flatMap { field in
            field.split(separator: ";").compactMap { pair -> (name: String, value: String)? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { return nil }
                return (String(parts[0].trimmingSpaces()), String(parts[1].trimmingSpaces()))
            }
        }
    }
}
