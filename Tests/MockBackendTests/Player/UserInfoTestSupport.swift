import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport

/// Opens the user-info stream of `userId` for `sessionId` on a new connection.
func openUserInfo(
    _ server: some AppUnderTest, session sessionId: String, userId: Int = 7_000_001, lastEventID: String? = nil
) async throws -> any StreamClient {
    var headers = ["X-SessionId": sessionId]
    if let lastEventID { headers["Last-Event-ID"] = lastEventID }
    return try await server.openStream("/v2/player/\(userId)/information/updates", headers: headers)
}

/// Waits until the user-info stream of `userId` has `count` subscribers.
func waitForUserInfoSubscribers(_ server: some AppUnderTest, _ count: Int, userId: Int = 7_000_001) async -> Bool {
    await eventually {
        server.app.streams.existingStream(named: "userinfo/\(userId)")?.snapshot.subscribers.count == count
    }
}

/// The events in a raw stream body (chunked or not).
func sseEvents(_ body: [UInt8]) -> [ServerSentEvent] {
    var parser = SSEParser()
    return parser.feed(body).compactMap { if case .event(let event) = $0 { event } else { nil } }
}

/// The `type` of each user-info frame's envelope.
func frameTypes(_ events: [ServerSentEvent]) -> [String] {
    events.compactMap { event in
        (try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])?["type"] as? String
    }
}

/// Posts a balance change through the admin API.
func postBalance(_ server: some AppUnderTest, _ amount: Double, userId: Int = 7_000_001) async throws {
    try await server.admin.users.postBalance(userId: userId, amount: amount)
}
