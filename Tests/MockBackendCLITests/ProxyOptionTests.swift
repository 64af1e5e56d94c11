import Foundation
import MockBackendTesting
import Testing

/// The proxy's options as the built binary reads them: each bad one stops the start with
/// exit 64 and a message naming it; a good set starts with the proxy's lines in the startup
/// block, and `/health` is then the upstream's.
@Suite("Proxy options")
struct ProxyOptionTests {
    @Test(
        "a bad proxy option exits 64 naming it",
        arguments: [
            (["--proxy", "ftp://example.org"], "--proxy must be an http:// or https:// URL"),
            (["--proxy", "http://example.org/?q=1"], "--proxy must be an http:// or https:// URL"),
            (["--proxy", "http://127.0.0.1:9", "--proxy-token", "basic"], "--proxy-token must be bearer"),
            (["--proxy", "http://127.0.0.1:9", "--proxy-timeout", "0"], "--proxy-timeout must be from 0.1"),
            (["--proxy", "http://127.0.0.1:9", "--proxy-timeout", "3601"], "--proxy-timeout must be from 0.1"),
            (["--proxy", "http://127.0.0.1:9", "--backends", "player,chat"], "--backends takes player"),
            (["--proxy-insecure"], "--proxy-insecure needs --proxy"),
            (["--proxy-preserve-host"], "--proxy-preserve-host needs --proxy"),
            (
                ["--proxy", "https://127.0.0.1:9", "--proxy-ca", "/tmp/ca.pem", "--proxy-insecure"],
                "Give either --proxy-ca or --proxy-insecure"
            ),
            (["--proxy", "https://127.0.0.1:9", "--proxy-ca", "/nonexistent.pem"], "--proxy-ca /nonexistent.pem"),
            (["--cors", "localhost:3000"], "--cors must be any, off, or origins"),
            (["--record", "/tmp/recording"], "--record needs --proxy"),
        ])
    func aBadProxyOptionExits64(_ arguments: [String], _ named: String) async throws {
        let server = try ServerProcess(["--port", "0"] + arguments)
        #expect(await server.waitForExit(timeout: .seconds(10)) == 64, "\(arguments)")
        #expect(server.text.contains(named), "\(arguments): \(server.text)")
        #expect(!server.text.contains("Fatal error"))
    }

    @Test func theStartupBlockNamesTheUpstreamAndTheBackendsKept() async throws {
        try await withRunningServer { upstream in
            let server = try ServerProcess([
                "--port", "0", "--proxy", "http://127.0.0.1:\(upstream.port)", "--backends", "workflows",
                "--proxy-token", "header:X-SessionId",
            ])
            let port = try await server.waitForListening()
            let upstreamURL = "http://127.0.0.1:\(upstream.port)"
            #expect(server.text.contains("proxy      \(upstreamURL)  (session token: header:X-SessionId)"))
            #expect(server.text.contains("backends   workflows"))
            #expect(server.text.contains("dashboard  http://127.0.0.1:\(port)/__admin/dashboard/"))
            let health = try await RawHTTPClient(port: port).get("/health")
            #expect(health.status == 200)
            #expect(health.headers["Via"] == "1.1 mockbackend")
            server.process.terminate()
            #expect(await server.waitForExit(timeout: .seconds(10)) == 0)
        }
    }
}
