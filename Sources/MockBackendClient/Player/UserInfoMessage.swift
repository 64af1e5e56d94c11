import Foundation
import MockBackendAPI

/// A message of the user-info stream, typed. Unknown types are kept, and a frame whose body
/// does not decode is kept too, with the error: nothing is dropped.
public enum UserInfoMessage: Sendable, Equatable {
    /// `BALANCE_UPDATE` (`isV2` false) or `BALANCE_UPDATE_V2`.
    case balanceUpdate(BalanceUpdateBody, isV2: Bool)
    /// `SESSION_EXPIRATION`: the session is over; the stream ends after it.
    case sessionExpiration(SessionExpirationBody)
    /// `SESSION_TERMINATED`: the session was logged out elsewhere; the stream ends after it.
    case sessionTerminated(SessionTerminatedBody)
    /// A type this client does not know, with the frame's data as sent.
    case unknown(type: String, data: String)
    /// A frame whose body does not decode as its `type` says (a contract drift), or whose
    /// data has no readable `type` (`type` nil). A terminal type still ends the stream.
    case undecodable(type: String?, data: String, error: FrameDecodingError)

    /// The types after which the backend ends the stream and the session answers 403.
    public static let terminalTypes: Set<String> = [
        UserInfoMessageType.sessionExpiration, UserInfoMessageType.sessionTerminated,
    ]

    private struct Envelope: Decodable {
        var type: String
    }

    /// Decodes the data of one frame (`{"type","body"}`): the `type` first, then the body
    /// that type names. Never fails: what does not decode is `.undecodable`, with the error.
    public static func decode(_ data: String) -> UserInfoMessage {
        let bytes = Data(data.utf8)
        let decoder = JSONDecoder()
        let type: String
        do {
            type = try decoder.decode(Envelope.self, from: bytes).type
        } catch {
            return .undecodable(type: nil, data: data, error: FrameDecodingError(error))
        }
        do {
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
        } catch {
            return .undecodable(type: type, data: data, error: FrameDecodingError(error))
        }
    }

    /// The frame's `type`; nil when it had none that could be read.
    public var type: String? {
        switch self {
        case .balanceUpdate(_, let isV2):
            isV2 ? UserInfoMessageType.balanceUpdateV2 : UserInfoMessageType.balanceUpdate
        case .sessionExpiration: UserInfoMessageType.sessionExpiration
        case .sessionTerminated: UserInfoMessageType.sessionTerminated
        case .unknown(let type, _): type
        case .undecodable(let type, _, _): type
        }
    }

    /// Why the session ended, when this message ends it: the `exitReason` of a
    /// `SESSION_EXPIRATION`, the `reason` of a `SESSION_TERMINATED`, or the type itself when
    /// such a message's body did not decode. Nil for every other message.
    public var sessionEndReason: String? {
        switch self {
        case .sessionExpiration(let body): body.exitReason
        case .sessionTerminated(let body): body.reason
        case .undecodable(let type?, _, _) where Self.terminalTypes.contains(type): type
        case .balanceUpdate, .unknown, .undecodable: nil
        }
    }
}
