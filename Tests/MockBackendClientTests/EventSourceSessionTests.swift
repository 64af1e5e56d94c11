import Foundation
import MockBackend
import MockBackendClient
import MockBackendTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("EventSource session and trusted certificates")
struct EventSourceSessionTests {
    @Test func theInjectedSessionConfigurationIsTheOneUsed() async throws {
        try await withRunningServer { server in
            var configuration = EventSourceConfiguration(
                policy: ReconnectionPolicy(initialDelay: .milliseconds(20), maxAttempts: 2, jitter: 0))
            configuration.sessionConfiguration = {
                let session = URLSessionConfiguration.ephemeral
                session.httpAdditionalHeaders = ["X-Pinned-By": "app"]
                return session
            }
            let source = EventSource(
                url: server.baseURL.appendingPathComponent("sse/channels/session"), configuration: configuration)
            source.start()
            #expect(await eventually { source.state == .open })
            // The client may see the head before the server's stream has journaled it.
            #expect(await eventually { !server.app.streams.journal.snapshots(stream: "channels/session").isEmpty })
            let connections = server.app.streams.journal.snapshots(stream: "channels/session")
            #expect(connections.map { header("X-Pinned-By", in: $0.requestHeaders) } == ["app"])
            source.stop()
        }
    }

    @Test func aPEMCertificateIsReadToItsDERFirstBlockFirst() throws {
        let der = Data((0..<300).map { UInt8($0 % 256) })
        let other = Data([1, 2, 3])
        func block(_ data: Data) -> String {
            let base64 = data.base64EncodedString(options: .lineLength64Characters)
            return "-----BEGIN CERTIFICATE-----\r\n\(base64)\r\n-----END CERTIFICATE-----\n"
        }
        #expect(try TrustedCertificate(pem: block(der)).der == der)
        #expect(try TrustedCertificate(pem: "subject=CN = localhost\n" + block(der) + block(other)).der == der)
        #expect(throws: TrustedCertificateError.noCertificate) { try TrustedCertificate(pem: "no certificate") }
        #expect(throws: TrustedCertificateError.noCertificate) {
            try TrustedCertificate(pem: "-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----")
        }
    }
}
