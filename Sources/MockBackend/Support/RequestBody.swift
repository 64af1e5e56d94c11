import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes JSON request bodies, answering 400 with a problem that names the bad field.
package enum RequestBody {
    package static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        let body = request.body.isEmpty ? Array("{}".utf8) : request.body
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw ProblemDetails.badRequest(describe(error), code: "INVALID_BODY")
        }
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
            return "Field '\(path(context))' must be \(describe(type))."
        case .valueNotFound(let type, let context):
            return "Field '\(path(context))' must be \(describe(type)), not null."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "The body is not valid JSON." : "Field '\(path(context))' is invalid: \(context.debugDescription)"
        @unknown default:
            return "The body could not be read."
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is UInt64.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "of type \(type)"
        }
    }
}
