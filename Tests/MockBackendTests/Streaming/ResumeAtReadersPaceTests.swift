import Foundation
import MockBackend
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// A resume is written at the reader's pace from the log: a reader far behind is never
/// dropped again for the size of what it missed.
@Suite("Resume of a large backlog at the reader's pace")
struct ResumeAtReadersPaceTests {
    @Test func aReaderEightMegabytesBehindResumesAndGetsEveryEventOnceInOrder() async throws {
        try await withRunningServer { server in
            let stream = server.app.streams.stream(named: "channels/behind")
            let payload = String(repeating: "b", count: 16 * 1024)
            // A reader that stops reading falls behind and is dropped at the unsent bound.
            let stalled = try StreamReader(server, "/sse/channels/behind", clientID: "far", receiveBufferSize: 4096)
            #expect(await eventually { stream.subscriberCount == 1 })
            for _ in 1...720 { stream.publish(ServerSentEvent(data: payload)) }
            #expect(
                await eventually {
                    server.app.streams.journal.snapshots(stream: "channels/behind").first?.endReason == "slow_reader"
                })
            try await stalled.readToClose()
            let missed = 720 - stalled.ids.count
            #expect(missed * payload.utf8.count >= 8 * 1024 * 1024, "\(missed) events missed")

            // It resumes from the last id it got, through a 4 KiB receive buffer, while live
            // events keep coming.
            let resumed = try StreamReader(
                server, "/sse/channels/behind", clientID: "far", lastEventID: stalled.ids.last ?? "0",
                receiveBufferSize: 4096)
            #expect(await eventually { stream.subscriberCount == 1 })
            for _ in 721...730 { stream.publish(ServerSentEvent(data: payload)) }
            try await resumed.read(until: "730", timeout: .seconds(120))
            #expect(stalled.ids + resumed.ids == (1...730).map(String.init))
            let records = server.app.streams.journal.snapshots(stream: "channels/behind")
            #expect(records.count == 2)
            #expect(records.last?.endReason == nil)
            #expect(records.last?.deliveredCount == 730 - stalled.ids.count)
        }
    }
}
