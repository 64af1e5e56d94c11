/// Why the data of one event-stream frame did not decode as the type it claims: where, and
/// what was wrong. Kept with the frame (`UserInfoMessage.undecodable`,
/// `WorkflowStreamMessage.undecodable`) so a body that drifted from the contract is seen,
/// not skipped.
public struct FrameDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The keys and indexes down to the field that failed, e.g. `["body", "exitReasonCode"]`;
    /// empty when the data is not JSON at all.
    public var codingPath: [String]
    /// What was wrong there.
    public var reason: String

    public init(codingPath: [String], reason: String) {
        self.codingPath = codingPath
        self.reason = reason
    }

    /// The path and reason of a `DecodingError`; another error's description.
    public init(_ error: any Error) {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            self.init(codingPath: context.codingPath.map(Self.name), reason: context.debugDescription)
        case DecodingError.keyNotFound(let key, let context):
            self.init(
                codingPath: (context.codingPath + [key]).map(Self.name),
                reason: "No value for key '\(key.stringValue)'.")
        default:
            self.init(codingPath: [], reason: String(describing: error))
        }
    }

    public var description: String {
        codingPath.isEmpty ? reason : "\(codingPath.joined(separator: ".")): \(reason)"
    }

    private static func name(_ key: any CodingKey) -> String {
        key.intValue.map(String.init) ?? key.stringValue
    }
}
