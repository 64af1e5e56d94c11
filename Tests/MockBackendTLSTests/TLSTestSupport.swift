import Foundation
import Logging
import MockBackend
import MockBackendTLS
import MockBackendTesting

/// A temporary directory removed when the test ends.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The server in-process with plain HTTP and HTTPS listeners, and its certificate in a
/// file for clients to trust.
struct TLSServer {
    let server: RunningServer
    let certificateFile: String
    let identity: TLSIdentity

    var tlsPort: Int { server.tlsPort ?? 0 }
    var httpsURL: String { "https://localhost:\(tlsPort)" }
}

let silentLogger = Logger(label: "mockbackend.test", factory: { _ in SwiftLogNoOpLogHandler() })

/// - Parameters:
///   - logger: what the TLS layer logs to (handshake failures, plain HTTP on the TLS port).
///   - configure: changes to the test configuration, e.g. shorter timeouts.
func withTLSServer<Result: Sendable>(
    logger: Logger = silentLogger, configure: (inout MockBackendConfiguration) -> Void = { _ in },
    _ body: (TLSServer) async throws -> Result
) async throws -> Result {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let identity = try TLSIdentity.selfSigned()
    let certificateFile = scratch.path("cert.pem")
    try identity.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
    var configuration = MockBackendConfiguration.forTesting()
    configure(&configuration)
    configuration.tls = try .forTesting(identity, logger: logger)
    return try await withRunningServer(configuration) { server in
        try await body(TLSServer(server: server, certificateFile: certificateFile, identity: identity))
    }
}

extension ToolRun {
    /// `curl` with the server's certificate as the only trusted one.
    static func curl(_ server: TLSServer, _ arguments: [String]) throws -> ToolRun {
        try ToolRun("/usr/bin/curl", ["--silent", "--show-error", "--cacert", server.certificateFile] + arguments)
    }

    static func openssl(_ arguments: [String], stdin: String? = nil) throws -> ToolRun {
        try ToolRun("/usr/bin/openssl", arguments, stdin: stdin)
    }
}
