import Foundation
import MockBackendSupport
import MockBackendTesting
import TestSupport
import Testing

/// An event source over the mock's HTTPS listener, whose certificate is self-signed.
@Suite("EventSource trust of the mock's certificate")
struct EventSourceTrustTests {
    private func source(_ server: TLSServer, handler: AuthenticationChallengeHandler?) throws -> EventSource {
        var configuration = EventSourceConfiguration(
            policy: ReconnectionPolicy(initialDelay: .milliseconds(10), maxAttempts: 1, jitter: 0))
        configuration.challengeHandler = handler
        let url = try #require(URL(string: "\(server.httpsURL)/sse/channels/trusted"))
        return EventSource(url: url, configuration: configuration)
    }

    #if canImport(Security)
    @Test func theTrustedCertificateIsTheOnlyOneTheSourceAccepts() async throws {
        try await withTLSServer { server in
            let trusted = try source(
                server, handler: TrustedCertificate(pem: server.identity.certificatePEM).challengeHandler)
            trusted.start()
            #expect(await eventually { trusted.state == .open })
            trusted.stop()
            let untrusted = try source(server, handler: nil)
            untrusted.start()
            #expect(await eventually { untrusted.state == .closed(.retriesExhausted) })
        }
    }
    #else
    /// FoundationNetworking leaves server trust to libcurl and the system's store: the
    /// handler is never asked, and the self-signed certificate is refused. README says so;
    /// this notices when a toolchain starts asking.
    @Test func onLinuxTheHandlerIsNeverAskedAboutServerTrust() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        try await withTLSServer(logger: logger) { server in
            let asked = LockedValue(0)
            let source = try source(
                server,
                handler: { _ in
                    asked.withLock { $0 += 1 }
                    return (.performDefaultHandling, nil)
                })
            source.start()
            #expect(await eventually { source.state == .closed(.retriesExhausted) })
            #expect(asked.current == 0)
            // Refused in the handshake (the client rejects the certificate), not for another reason.
            let refused = await eventually { records.all.contains { $0.message == "TLS handshake failed" } }
            #expect(refused, "\(records.all.map(\.message))")
        }
    }
    #endif
}
