import Foundation
import MockBackendSupport
import MockBackendTesting
import Testing

/// Reads a user-info stream's messages in the background, for assertions from the test task.
final class UserInfoDrain: Sendable {
    let messages = LockedValue<[UserInfoMessage]>([])
    let failure = LockedValue<(any Error)?>(nil)
    let ended = LockedValue(false)

    init(_ stream: UserInfoStream) {
        Task {
            do {
                for try await message in stream.messages { messages.withLock { $0.append(message) } }
            } catch {
                failure.withLock { $0 = error }
            }
            ended.withLock { $0 = true }
        }
    }

    /// The balance postings received, by `affectedAmount` of the `Real` wallet.
    var amounts: [Double] {
        messages.current.compactMap { message in
            guard case .balanceUpdate(let body, _) = message else { return nil }
            return body.balanceChange["Real"]?.affectedAmount
        }
    }
}

/// Drains `stream`, starts it, and waits until the server counts its one connection.
func startDraining(
    _ stream: UserInfoStream, on server: RunningServer, sourceLocation: SourceLocation = #_sourceLocation
) async -> UserInfoDrain {
    let drain = UserInfoDrain(stream)
    stream.start()
    #expect(await userInfoSubscribers(server, 1), sourceLocation: sourceLocation)
    return drain
}

/// Waits until the user-info stream of `userId` has `count` subscribers.
func userInfoSubscribers(_ server: RunningServer, _ count: Int, userId: Int = 7_000_001) async -> Bool {
    await eventually {
        (server.app.streams.existingStream(named: "userinfo/\(userId)")?.snapshot.subscribers.count ?? 0) == count
    }
}

/// The user-info stream's connections, oldest first, from the stream journal.
func userInfoConnections(_ server: RunningServer, userId: Int = 7_000_001) async throws
    -> [StreamConnectionSnapshot]
{
    try await server.admin.streams.connections(stream: "userinfo/\(userId)")
}

/// A reconnection policy quick enough for tests, without jitter.
let quickPolicy = ReconnectionPolicy(initialDelay: .milliseconds(20), maxAttempts: 3, jitter: 0)
