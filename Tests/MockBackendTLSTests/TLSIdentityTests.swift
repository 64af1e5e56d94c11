import Foundation
import MockBackendTLS
import MockBackendTesting
import TestSupport
import Testing

@Suite("TLS certificates")
struct TLSIdentityTests {
    /// What iOS asks of a server certificate: SAN names, EKU serverAuth, at most 825 days,
    /// P-256 or RSA 2048+, SHA-256; and the certificate verifies against itself.
    @Test func theSelfSignedCertificateIsOneIOSAccepts() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let identity = try TLSIdentity.selfSigned(extraNames: ["mock.local", "192.168.1.20"])
        let file = scratch.path("cert.pem")
        try identity.certificatePEM.write(toFile: file, atomically: true, encoding: .utf8)

        let verify = try ToolRun.openssl(["verify", "-CAfile", file, file])
        #expect(await verify.exitStatus() == 0, "\(verify.output)")
        #expect(verify.output.contains("\(file): OK"))

        let text = try ToolRun.openssl(["x509", "-in", file, "-noout", "-text"])
        #expect(await text.exitStatus() == 0)
        for expected in [
            "DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1", "DNS:mock.local",
            "IP Address:192.168.1.20", "TLS Web Server Authentication", "ecdsa-with-SHA256", "prime256v1",
            "CA:TRUE",
        ] {
            #expect(text.output.contains(expected), "missing \(expected)")
        }
        // Still valid 823 days from now, expired by 825.
        let valid = try ToolRun.openssl(["x509", "-in", file, "-noout", "-checkend", "\(823 * 86_400)"])
        #expect(await valid.exitStatus() == 0)
        let expired = try ToolRun.openssl(["x509", "-in", file, "-noout", "-checkend", "\(825 * 86_400)"])
        #expect(await expired.exitStatus() == 1)

        let fingerprint = try ToolRun.openssl(["x509", "-in", file, "-noout", "-fingerprint", "-sha256"])
        #expect(await fingerprint.exitStatus() == 0)
        #expect(fingerprint.output.contains("=\(identity.sha256Fingerprint)"), "\(fingerprint.output)")
    }

    @Test func twoGeneratedCertificatesDiffer() throws {
        #expect(try TLSIdentity.selfSigned().sha256Fingerprint != TLSIdentity.selfSigned().sha256Fingerprint)
    }

    @Test func loadsACertificateAndKeyMadeByOpenSSL() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (certificate, key) = try await makeCertificate(in: scratch, named: "a")
        let identity = try TLSIdentity.load(certificateFile: certificate, keyFile: key)
        let onDisk = try String(contentsOfFile: certificate, encoding: .utf8)
        #expect(identity.certificatePEM == onDisk)
    }

    @Test func refusesUnreadableMismatchedOrMalformedFiles() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (certificate, _) = try await makeCertificate(in: scratch, named: "a")
        let (_, otherKey) = try await makeCertificate(in: scratch, named: "b")
        #expect {
            try TLSIdentity.load(certificateFile: scratch.path("missing.pem"), keyFile: otherKey)
        } throws: { ($0 as? TLSError)?.message.contains("cannot read the certificate file") == true }
        #expect {
            try TLSIdentity.load(certificateFile: certificate, keyFile: scratch.path("missing.key"))
        } throws: { ($0 as? TLSError)?.message.contains("cannot read the key file") == true }
        #expect {
            try TLSIdentity.load(certificateFile: certificate, keyFile: otherKey)
        } throws: { ($0 as? TLSError)?.message.contains("does not match") == true }
        let notPEM = scratch.path("not.pem")
        try "hello".write(toFile: notPEM, atomically: true, encoding: .utf8)
        #expect {
            try TLSIdentity.load(certificateFile: notPEM, keyFile: otherKey)
        } throws: { ($0 as? TLSError)?.message.contains("holds no PEM certificate") == true }
        #expect {
            try TLSIdentity.load(certificateFile: certificate, keyFile: notPEM)
        } throws: { ($0 as? TLSError)?.message.contains("holds no unencrypted PEM private key") == true }
    }
}

/// A certificate and key from the `openssl` command line, as a developer would make them.
func makeCertificate(in scratch: ScratchDirectory, named name: String) async throws -> (String, String) {
    let certificate = scratch.path("\(name).pem")
    let key = scratch.path("\(name).key")
    let run = try ToolRun.openssl([
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
        "-out", certificate, "-days", "30", "-subj", "/CN=localhost",
    ])
    guard await run.exitStatus() == 0 else { throw TLSError("openssl req failed: \(run.output)") }
    return (certificate, key)
}
