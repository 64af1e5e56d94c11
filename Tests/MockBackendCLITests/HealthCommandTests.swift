import Foundation
import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackendCLI

/// `mockbackend health`, run as the built binary against a server started in-process.
@Suite("mockbackend health")
struct HealthCommandTests {
    @Test func aHealthyURLExitsZero() async throws {
        try await withRunningServer { server in
            let check = try ServerProcess(["health", "--url", "http://127.0.0.1:\(server.port)/health"])
            #expect(await check.waitForExit(timeout: .seconds(5)) == 0)
            #expect(check.text.contains("healthy: http://127.0.0.1:\(server.port)/health answered 200 OK"))
        }
    }

    @Test func aNotFoundURLExitsOneNamingTheStatus() async throws {
        try await withRunningServer { server in
            let check = try ServerProcess(["health", "--url", "http://localhost:\(server.port)/nowhere"])
            #expect(await check.waitForExit(timeout: .seconds(5)) == 1)
            #expect(check.text.contains("unhealthy: http://localhost:\(server.port)/nowhere answered 404 Not Found"))
        }
    }

    @Test func aRefusedPortExitsOneNamingTheReason() async throws {
        let port = try SilentListener().closedPort()
        let check = try ServerProcess(["health", "--url", "http://127.0.0.1:\(port)/health"])
        #expect(await check.waitForExit(timeout: .seconds(5)) == 1)
        #expect(check.text.contains("cannot connect to 127.0.0.1:\(port): Connection refused"))
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let listener = try SilentListener()
        let start = ContinuousClock.now
        let check = try ServerProcess(["health", "--url", "http://127.0.0.1:\(listener.port)/", "--timeout", "0.5"])
        // The listener never answers: without the timeout the check would wait for ever. How
        // long starting the process takes on a loaded machine is not the check's to bound.
        #expect(await check.waitForExit(timeout: .seconds(10)) == 1)
        #expect(ContinuousClock.now - start >= .milliseconds(500))
        #expect(check.text.contains("no answer from 127.0.0.1:\(listener.port) within 0.5 seconds"))
    }

    /// The image's HEALTHCHECK names no URL: the port comes from the variable the server
    /// reads, and the server's other variables (here the host) are not handed to `health`.
    @Test func withoutURLItChecksThePortOfTheEnvironment() async throws {
        try await withRunningServer { server in
            let check = try ServerProcess(
                ["health"],
                environment: [
                    "MOCKBACKEND_PORT": "\(server.port)", "MOCKBACKEND_HOST": "0.0.0.0",
                    "MOCKBACKEND_SCENARIO": "/nonexistent/scenario.json",
                ])
            #expect(await check.waitForExit(timeout: .seconds(5)) == 0)
            #expect(check.text.contains("http://127.0.0.1:\(server.port)/__admin/health answered 200"))
        }
    }

    @Test(
        "bad arguments exit 64",
        arguments: [["health", "--url", "https://127.0.0.1/"], ["health", "--timeout", "0"]])
    func badArgumentsExit64(_ arguments: [String]) async throws {
        let check = try ServerProcess(arguments)
        #expect(await check.waitForExit(timeout: .seconds(5)) == 64)
        #expect(check.text.contains("Error:"))
    }

    @Test func urlsAreTakenApart() throws {
        let plain = try #require(ProbeURL("http://mock:8080/health?deep=1#top"))
        #expect(plain == ProbeURL(host: "mock", port: 8080, target: "/health?deep=1"))
        #expect(ProbeURL("HTTP://127.0.0.1") == ProbeURL(host: "127.0.0.1", port: 80, target: "/"))
        #expect(ProbeURL("http://[::1]:9/x") == ProbeURL(host: "::1", port: 9, target: "/x"))
        #expect(ProbeURL("http://[::1]:9/x")?.authority == "[::1]:9")
        #expect(ProbeURL("http://h?q") == ProbeURL(host: "h", port: 80, target: "/?q"))
        for bad in [
            "https://h/", "h:80/", "http://", "http://:80/", "http://u@h/", "http://h:0/", "http://h:x/",
            "http://[::1/", "http://h/a b",
        ] {
            #expect(ProbeURL(bad) == nil, "\(bad)")
        }
    }
}

extension ProbeURL {
    init(host: String, port: Int, target: String) {
        self.init("http://x")!
        self.host = host
        self.port = port
        self.target = target
    }
}

/// A loopback socket that listens (so connects succeed, queued by the kernel) and never
/// accepts or answers.
final class SilentListener {
    let fileDescriptor: Int32
    let port: Int
    private var isClosed = false

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            let code = errno
            close(fd)
            throw RawClientError.connectFailed(code)
        }
        fileDescriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes the socket and returns its port, which then refuses connections.
    func closedPort() -> Int {
        closeOnce()
        return port
    }

    private func closeOnce() {
        guard !isClosed else { return }
        isClosed = true
        close(fileDescriptor)
    }

    deinit { closeOnce() }
}
