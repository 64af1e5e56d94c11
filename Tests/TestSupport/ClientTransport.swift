import Foundation
import MockBackend
import MockBackendHTTP
import MockBackendTLS
import MockBackendTesting

/// How a test of the client library reaches the server: over plain HTTP/1.1 (URLSession
/// never asks for h2c), or over the TLS listener, where URLSession negotiates h2 by ALPN.
///
/// The second needs a certificate the system trusts: FoundationNetworking leaves trust to
/// libcurl and the system's store, never to the app. `scripts/eventsource-over-h2.sh` makes
/// one, trusts it for the run and names it in `MOCKBACKEND_TRUSTED_TLS_CERT` and
/// `MOCKBACKEND_TRUSTED_TLS_KEY`; without them only HTTP/1.1 runs.
public enum ClientTransport: String, CaseIterable, Sendable, CustomStringConvertible {
    case http11 = "HTTP/1.1"
    case h2 = "h2 (TLS, trusted certificate)"

    public var description: String { rawValue }

    /// What the request journal calls the protocol requests of this transport came over.
    public var journaledProtocol: String { self == .http11 ? "http/1.1" : "h2" }

    /// The certificate and key files the system trusts, when the environment names them.
    public static var trustedCertificate: (certificate: String, key: String)? {
        let environment = ProcessInfo.processInfo.environment
        guard let certificate = environment["MOCKBACKEND_TRUSTED_TLS_CERT"],
            let key = environment["MOCKBACKEND_TRUSTED_TLS_KEY"]
        else { return nil }
        return (certificate, key)
    }

    /// HTTP/1.1, and h2 where the build has HTTP/2 and a trusted certificate is named.
    public static var available: [ClientTransport] {
        [.http11] + (HTTP2Support.isAvailable && trustedCertificate != nil ? [.h2] : [])
    }
}

/// Starts the server for `transport`, runs `body` with it and the base URL a client uses
/// (`http://127.0.0.1:PORT`, or `https://localhost:TLSPORT` with the trusted certificate),
/// and always stops it.
public func withServer<Result: Sendable>(
    over transport: ClientTransport, _ configuration: MockBackendConfiguration = .forTesting(),
    _ body: (RunningServer, URL) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    if transport == .h2 {
        guard let files = ClientTransport.trustedCertificate else { fatalError("no trusted certificate is named") }
        configuration.tls = try .forTesting(
            TLSIdentity.load(certificateFile: files.certificate, keyFile: files.key))
    }
    return try await withRunningServer(configuration) { server in
        let base = transport == .h2 ? "https://localhost:\(server.tlsPort ?? 0)" : "http://127.0.0.1:\(server.port)"
        return try await body(server, URL(string: base)!)
    }
}
