import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads JSON request bodies the one way every JSON route does: a body sent with a
/// `Content-Type` that is not JSON (`application/json`, or another `application/…+json`
/// type, any parameters) is refused with 415 `UNSUPPORTED_MEDIA_TYPE` (RFC 9110
/// §15.5.16) — a form, `text/plain`, a multipart upload; a body without one is read as JSON
/// (RFC 9110 §8.3 lets a recipient examine the data), and an empty body reads as `{}`. A
/// body that does not decode is refused with 400 `INVALID_BODY`, naming the field in words
/// a client developer reads: no Swift type names.
package enum RequestBody {
    package static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        let body = try json(of: request)
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw ProblemDetails.badRequest(describe(error), code: "INVALID_BODY")
        }
    }

    /// The body of a JSON route, `{}` when it is empty.
    /// - Throws: 415 `UNSUPPORTED_MEDIA_TYPE` when a body comes with a content type that is
    ///   not JSON.
    package static func json(of request: HTTPRequest) throws -> [UInt8] {
        try checkContentType(of: request)
        return request.body.isEmpty ? Array("{}".utf8) : request.body
    }

    /// Refuses a body whose content type is not JSON, with 415 `UNSUPPORTED_MEDIA_TYPE`; an
    /// empty body passes whatever its type, and a body without one is taken as JSON.
    package static func checkContentType(of request: HTTPRequest) throws {
        guard !request.body.isEmpty, let contentType = request.headers["Content-Type"], !isJSON(contentType)
        else { return }
        throw ProblemDetails(
            status: 415, code: "UNSUPPORTED_MEDIA_TYPE",
            detail: "The body must be JSON, sent with Content-Type: application/json, not \(contentType).")
    }

    /// Whether a `Content-Type` value names JSON: `application/json` or `application/…+json`
    /// (RFC 6839 §3.1), in any case, with any parameters.
    static func isJSON(_ contentType: String) -> Bool {
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = essence.trimmingSpaces().lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "application" else { return false }
        return parts[1] == "json" || (parts[1].hasSuffix("+json") && parts[1].count > 5)
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (last.map { [$0] } ?? [])
            return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Field '\(path(context, key))' is required."
        case .typeMismatch(let type, let context):
            return context.codingPath.isEmpty
                ? "The body must be \(describe(type))." : "Field '\(path(context))' must be \(describe(type))."
        case .valueNotFound(let type, let context):
            return context.codingPath.isEmpty
                ? "The body must be \(describe(type)), not null."
                : "Field '\(path(context))' must be \(describe(type)), not null."
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else { return "The body is not valid JSON." }
            return "Field '\(path(context))' \(reason(context.debugDescription))"
        @unknown default:
            return "The body could not be read."
        }
    }

    /// What a decoder's own description of a bad value says, without the type names
    /// Foundation puts in it ("Cannot initialize Mode from invalid String value x",
    /// "Parsed JSON number <1e400> does not fit in Int."); this package's own descriptions
    /// are sentences already.
    private static func reason(_ description: String) -> String {
        if description.hasPrefix("Cannot initialize") { return "has a value it does not take." }
        if description.contains("does not fit in") { return "is a number out of range." }
        return "is invalid: \(description)"
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: return "a string"
        case is any BinaryInteger.Type: return "an integer"
        case is any BinaryFloatingPoint.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            // Keyed containers report `Dictionary<String, Any>`, unkeyed ones `Array<Any>`.
            let name = String(describing: type)
            if name.hasPrefix("Dictionary<") { return "an object" }
            if name.hasPrefix("Array<") || name.hasPrefix("Set<") { return "an array" }
            return "a value of another kind"
        }
    }
}
