import Foundation
import MockBackendTesting
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("HTTPS handshake failures are logged")
struct HandshakeLoggingTests {
    /// `127.0.0.1:PORT` of the client's end of the connection: what the server logs as the peer.
    private static func localAddress(of client: RawHTTPClient) -> String {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client.fileDescriptor, $0, &length) }
        }
        return "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    /// The record with `message` whose peer is `client`, once it is logged.
    private static func record(
        _ message: String, from client: RawHTTPClient, in records: CapturingLogHandler.Records
    ) async -> CapturedLogRecord? {
        let peer = localAddress(of: client)
        let find = { records.all.first { $0.message == message && $0.metadata["peer"] == peer } }
        _ = await eventually { find() != nil }
        return find()
    }

    /// A ClientHello record whose contents are garbage fails in OpenSSL: the failure is
    /// logged at info with the client's address and OpenSSL's reason. Fails if the failure
    /// goes unlogged, or is logged without the peer or the reason.
    @Test func aGarbageClientHelloIsLoggedWithThePeerAndTheReason() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        try await withTLSServer(logger: logger) { tls in
            let garbage = try RawHTTPClient(port: tls.tlsPort)
            try garbage.send([0x16, 0x03, 0x01, 0x00, 0x40] + (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) })
            let logged = await Self.record("TLS handshake failed", from: garbage, in: records)
            #expect(logged != nil, "\(records.all.map(\.message))")
            #expect(logged?.level == .info)
            #expect(logged?.metadata["reason"]?.isEmpty == false, "\(String(describing: logged))")
            #expect(await garbage.waitForClose() != .stillOpen)
        }
    }

    /// Bytes that are no TLS record at all, and a plain HTTP request, are logged as what
    /// they are, each with the client's address. Fails if either goes unlogged or names
    /// another peer.
    @Test func plaintextAndNonTLSBytesAreLoggedWithThePeer() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        try await withTLSServer(logger: logger) { tls in
            let plaintext = try RawHTTPClient(port: tls.tlsPort)
            try plaintext.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let rejected = await Self.record("plain HTTP request on the TLS port", from: plaintext, in: records)
            #expect(rejected != nil, "\(records.all.map(\.message))")
            #expect(rejected?.level == .info)

            let notTLS = try RawHTTPClient(port: tls.tlsPort)
            try notTLS.send([0x00, 0xFF, 0x13, 0x37])
            let failed = await Self.record("TLS handshake failed", from: notTLS, in: records)
            #expect(failed?.metadata["reason"] == "not a TLS record (first byte 0)", "\(records.all)")
        }
    }
}
