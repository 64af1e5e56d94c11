import MockBackendHTTP
import Testing

/// Which `Host` names are answered, and what counts as the server's own origin.
@Suite("Host policy")
struct HostPolicyTests {
    let policy = HostPolicy(
        listeningHost: "0.0.0.0", allowedHosts: ["staging.internal", ".dev.example"], machineName: "box.lan")

    @Test(arguments: [
        "localhost", "localhost:8080", "LOCALHOST.", "127.0.0.1:8080", "[::1]:8080", "10.0.2.2:8080",
        "192.168.1.20", "mockbackend:8080", "app.localhost:3000", "macbook.local", "box.lan",
        "staging.internal", "dev.example", "api.dev.example:443",
    ])
    func answers(_ host: String) {
        #expect(policy.allows(hostHeader: host))
    }

    @Test(arguments: [
        "evil.example", "evil.example:8080", "rebind.attacker.test", "staging.internal.evil.example",
        "xdev.example", "localhost.evil.example", "a b", "[::1", "host:port",
    ])
    func refuses(_ host: String) {
        #expect(!policy.allows(hostHeader: host))
    }

    @Test func aNameIsLowerCasedWithoutItsPortAndTrailingDot() {
        #expect(HostPolicy.name(ofHost: "Api.Example.COM.:8443") == "api.example.com")
        #expect(HostPolicy.name(ofHost: "[::FFFF:1]:80") == "::ffff:1")
        #expect(HostPolicy.name(ofHost: "[::1]") == "::1")
        #expect(HostPolicy.name(ofHost: "xn--bcher-kva.example") == "xn--bcher-kva.example")
    }

    @Test(arguments: [
        "[::1]x", "[::1]:8a", "example.com:80a", ":80", "...", "exa mple.com", "bücher.example", "\u{212A}.example",
        "[bücher.example]",
    ])
    func aValueThatIsNotHostAndPortHasNoName(_ value: String) {
        #expect(HostPolicy.name(ofHost: value) == nil)
    }

    @Test func ipAddressesAreToldFromNames() {
        for address in ["127.0.0.1", "0.0.0.0", "255.255.255.255", "010.1.1.1", "::1", "fe80::1", "::ffff:10.0.2.2"] {
            #expect(HostPolicy.isIPAddress(address), "\(address)")
        }
        for name in ["256.1.1.1", "1.2.3", "1.2.3.4.5", "1..2.3", "1.2.3.", "1234.1.1.1", "a.b.c.d", "fe80::g", ""] {
            #expect(!HostPolicy.isIPAddress(name), "\(name)")
        }
    }

    @Test func noHostIsAnswered() {
        #expect(policy.allows(hostHeader: nil))
        #expect(policy.allows(hostHeader: ""))
    }

    @Test func aStarAnswersEveryName() {
        #expect(HostPolicy(listeningHost: "127.0.0.1", allowedHosts: ["*"]).allows(hostHeader: "evil.example"))
    }

    @Test func theListeningHostIsAnswered() {
        let policy = HostPolicy(listeningHost: "mock.test.example", machineName: nil)
        #expect(policy.allows(hostHeader: "mock.test.example:80"))
    }

    @Test func sameOrigin() {
        #expect(HostPolicy.isSameOrigin("http://localhost:8080", hostHeader: "localhost:8080"))
        #expect(HostPolicy.isSameOrigin("http://localhost", hostHeader: "localhost:80"))
        #expect(HostPolicy.isSameOrigin("https://LOCALHOST:443", hostHeader: "localhost"))
        #expect(!HostPolicy.isSameOrigin("http://localhost:3000", hostHeader: "localhost:8080"))
        #expect(!HostPolicy.isSameOrigin("null", hostHeader: "localhost:8080"))
        #expect(!HostPolicy.isSameOrigin("http://localhost:8080", hostHeader: nil))
    }
}
