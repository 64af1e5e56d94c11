import MockBackendSupport
import MockBackendTesting
import Testing

/// `withRunningServer` always stops what it started.
@Suite("withRunningServer")
struct RunningServerTests {
    @Test func stopsTheServerWhenTheBodyThrows() async throws {
        struct Expected: Error {}
        let connection = LockedValue<RawHTTPClient?>(nil)
        await #expect(throws: Expected.self) {
            try await withRunningServer { server in
                let client = try server.connect()
                #expect(try await client.get("/health").status == 200)
                connection.withLock { $0 = client }
                throw Expected()
            }
        }
        // The server that held the connection is gone, so the connection has ended.
        let client = try #require(connection.current)
        #expect(await client.waitForClose(timeout: .seconds(2)) == .fin)
    }
}
