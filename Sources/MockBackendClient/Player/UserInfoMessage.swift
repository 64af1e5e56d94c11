import Foundation
import MockBackendAPI

/// A message of the user-info stream, typed. Unknown types are kept, not dropped.
public enum UserInfoMessage: Sendable, Equatable {
    /// `BALANCE_UPDATE` (`isV2` false) or `BALANCE_UPDATE_V2`.
    case balanceUpdate(BalanceUpdateBody, isV2: Bool)
    case sessionExpiration(SessionExpirationBody)
    case sessionTerminated(SessionTerminatedBody)
    /// A type this client does not know, with the frame's data as sent.
    case unknown(type: String, data: String)

    private struct Envelope: Decodable {
        var type: String
    }

    /// Decodes the data of one frame (`{"type","body"}`).
    public static func decode(_ data: String) throws -> UserInfoMessage {
        let bytes = Data(data.utf8)
        let decoder = JSONDecoder()
        let type = try decoder.decode(Envelope.self, from: bytes).type
        switch type {
        case UserInfoMessageType.balanceUpdate, UserInfoMessageType.balanceUpdateV2:
            let body = try decoder.decode(UserInfoEnvelope<BalanceUpdateBody>.self, from: bytes).body
            return .balanceUpdate(body, isV2: type == UserInfoMessageType.balanceUpdateV2)
        case UserInfoMessageType.sessionExpiration:
            return .sessionExpiration(
                try decoder.decode(UserInfoEnvelope<SessionExpirationBody>.self, from: bytes).body)
        case UserInfoMessageType.sessionTerminated:
            return .sessionTerminated(
                try decoder.decode(UserInfoEnvelope<SessionTerminatedBody>.self, from: bytes).body)
        default:
            return .unknown(type: type, data: data)
        }
    }
}

/// Lets each balance posting through once: the backend sends `BALANCE_UPDATE` and
/// `BALANCE_UPDATE_V2` with the same `postingId`. Remembers the last `capacity` ids.
public struct PostingDeduplicator: Sendable {
    public let capacity: Int
    private var seen: Set<String> = []
    private var order: [String] = []

    public init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// True the first time a posting id is offered.
    public mutating func isNew(_ postingId: String) -> Bool {
        guard seen.insert(postingId).inserted else { return false }
        order.append(postingId)
        if order.count > capacity { seen.remove(order.removeFirst()) }
        return true
    }
}
