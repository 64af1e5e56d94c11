import Foundation
import MockBackendTesting
import TestSupport
import Testing

@Suite("TLS options", .serialized)
struct TLSOptionTests {
    private static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A certificate and key from the `openssl` command line, as a developer makes them.
    private static func makeCertificate(_ keyOptions: [String], _ key: String, _ certificate: String) async throws {
        let openssl = try ToolRun(
            "/usr/bin/openssl",
            ["req", "-x509"] + keyOptions + [
                "-nodes", "-keyout", key, "-out", certificate, "-days", "30", "-subj", "/CN=localhost",
            ])
        #expect(await openssl.exitStatus() == 0, "\(openssl.output)")
    }

    /// The HTTPS port the startup block names.
    private static func httpsPort(in banner: String) -> Int? {
        guard let range = banner.range(of: #"https      https://127\.0\.0\.1:(\d+)/"#, options: .regularExpression)
        else { return nil }
        return Int(banner[range].dropLast().split(separator: ":").last ?? "")
    }

    /// The output of an `openssl` command, nil when it fails.
    private static func openssl(_ arguments: [String]) async throws -> String? {
        let run = try ToolRun("/usr/bin/openssl", arguments)
        return await run.exitStatus() == 0 ? run.output : nil
    }

    /// With no certificate given (and again with `--tls-self-signed` given explicitly) the
    /// listener makes one: the fingerprint printed is that of the file written, which
    /// verifies against itself, names localhost and the loopback addresses, and is served.
    @Test(arguments: [[], ["--tls-self-signed"]])
    func aSelfSignedListenerPrintsItsFingerprintAndWritesItsCertificate(_ selfSigned: [String]) async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificateFile = directory.appendingPathComponent("cert.pem").path
        let server = try ServerProcess(
            ["--port", "0", "--tls-port", "0", "--tls-cert-out", certificateFile] + selfSigned)
        _ = try await server.waitForListening()
        let banner = server.text
        let tlsPort = try #require(Self.httpsPort(in: banner), "\(banner)")
        let printed = try #require(
            banner.firstMatch(of: /tls sha256 ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})\n/)?.output.1, "\(banner)")
        let pem = try String(contentsOfFile: certificateFile, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))

        let fingerprint = try await Self.openssl(["x509", "-noout", "-fingerprint", "-sha256", "-in", certificateFile])
        #expect(
            fingerprint?.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) == String(printed),
            "openssl: \(fingerprint ?? "failed"), printed: \(printed)")
        let verify = try await Self.openssl(["verify", "-CAfile", certificateFile, certificateFile])
        #expect(verify?.contains("\(certificateFile): OK") == true, "\(verify ?? "verify failed")")
        let names = try await Self.openssl(["x509", "-noout", "-ext", "subjectAltName", "-in", certificateFile])
        for name in ["DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1"] {
            #expect(names?.contains(name) == true, "\(name) missing from \(names ?? "no SAN")")
        }

        let curl = try ToolRun(
            "/usr/bin/curl", ["--silent", "--fail", "--cacert", certificateFile, "https://localhost:\(tlsPort)/health"])
        #expect(await curl.exitStatus() == 0)
        #expect(curl.output == #"{"status":"ok"}"#)
        server.process.terminate()
        #expect(await server.waitForExit(timeout: .seconds(2)) == 0)
    }

    @Test func theEnvironmentTurnsTLSOn() async throws {
        let server = try ServerProcess(
            [], environment: ["MOCKBACKEND_PORT": "0", "MOCKBACKEND_TLS_PORT": "0", "MOCKBACKEND_TLS_SELF_SIGNED": "1"])
        _ = try await server.waitForListening()
        #expect(Self.httpsPort(in: server.text) != nil, "\(server.text)")
        server.process.terminate()
        _ = await server.waitForExit(timeout: .seconds(2))
    }

    /// Unreadable or mismatched files, and options that do not fit together, stop the
    /// start with a usage error (exit 64) that names the problem.
    @Test func badCertificatesAndOptionsExitWith64() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyA = directory.appendingPathComponent("a.key").path
        let certificateA = directory.appendingPathComponent("a.pem").path
        let keyB = directory.appendingPathComponent("b.key").path
        for (key, certificate) in [(keyA, certificateA), (keyB, directory.appendingPathComponent("b.pem").path)] {
            try await Self.makeCertificate(
                ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"], key, certificate)
        }
        let cases: [([String], String)] = [
            (["--tls-cert", directory.appendingPathComponent("none.pem").path, "--tls-key", keyA], "cannot read"),
            (["--tls-cert", certificateA, "--tls-key", keyB], "does not match"),
            (["--tls-cert", certificateA], "go together"),
            (["--tls-cert", certificateA, "--tls-key", keyA, "--tls-self-signed"], "either"),
        ]
        for (arguments, message) in cases {
            let server = try ServerProcess(["--port", "0", "--tls-port", "0"] + arguments)
            #expect(await server.waitForExit(timeout: .seconds(10)) == 64, "\(arguments)")
            #expect(server.text.contains(message), "\(arguments): \(server.text)")
        }
        let withoutPort = try ServerProcess(["--port", "0", "--tls-self-signed"])
        #expect(await withoutPort.waitForExit(timeout: .seconds(10)) == 64)
        #expect(withoutPort.text.contains("need --tls-port"))
        let samePort = try ServerProcess(["--port", "8443", "--tls-port", "8443"])
        #expect(await samePort.waitForExit(timeout: .seconds(10)) == 64)
    }

    @Test func givenFilesServeTheirCertificate() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("k.key").path
        let certificate = directory.appendingPathComponent("c.pem").path
        try await Self.makeCertificate(["-newkey", "rsa:2048"], key, certificate)
        let server = try ServerProcess(["--port", "0", "--tls-port", "0", "--tls-cert", certificate, "--tls-key", key])
        let port = try await server.waitForListening()
        let served = try await RawHTTPClient(port: port).get("/__admin/tls/cert.pem")
        #expect(served.status == 200)
        #expect(served.text == (try String(contentsOfFile: certificate, encoding: .utf8)))
        server.process.terminate()
        _ = await server.waitForExit(timeout: .seconds(2))
    }
}
