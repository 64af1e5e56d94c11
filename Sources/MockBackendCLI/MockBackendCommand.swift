import ArgumentParser
import Dispatch
import Logging
import MockBackend
import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension BalanceUpdateVariants: ExpressibleByArgument {}

/// `mockbackend`: runs the mock backend until SIGINT or SIGTERM. The server is what runs
/// when no subcommand is named, so `mockbackend --port 8080` starts it; `mockbackend health`
/// checks a running one.
struct MockBackendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mockbackend",
        abstract: "A mock backend server for SSE-heavy clients, with faults on demand.",
        usage: """
            mockbackend [<options>]
            mockbackend health [<options>]
            """,
        discussion: """
            Every option can also be set through the environment as MOCKBACKEND_<NAME>, \
            e.g. MOCKBACKEND_PORT=8080 or MOCKBACKEND_MAX_CONNECTIONS=100; \
            a flag on the command line wins over the environment.
            """,
        version: MockBackendVersion.current,
        subcommands: [HealthCommand.self]
    )

    @Option(help: .withVariable("host", "Address to listen on (0.0.0.0 to listen on every interface)."))
    var host = "127.0.0.1"

    @Option(help: .withVariable("port", "Port to listen on; 0 picks a free one and prints it."))
    var port = 8080

    @Option(
        help: .withVariable(
            "public-dir",
            "Serve the dashboard and static files from this folder, read on each request (to edit them live). Default: the copy built into the binary."
        )
    )
    var publicDir: String?

    @Option(
        help: .withVariable(
            "openapi-file",
            "Serve this file at /openapi.yaml, read on each request. Default: the copy of openapi/openapi.yaml built into the binary."
        )
    )
    var openapiFile: String?

    @Option(
        help: .withVariable("log-level", "Lowest level logged: trace, debug, info, notice, warning, error or critical.")
    )
    var logLevel: Logger.Level = .info

    @Option(help: .withVariable("log-format", "Log line format: text or json."))
    var logFormat: LogFormat = .text

    @Option(help: .withVariable("max-connections", "Connections served at once; further ones get 503."))
    var maxConnections = 4096

    @Option(
        help: .withVariable(
            "heartbeat", "Seconds between heartbeat comments on streams that have them; 0 turns them off."))
    var heartbeat: Double = 15

    @Option(
        help: .withVariable(
            "sse-padding", "Bytes of padding comment sent first on every stream (?padding= per request)."))
    var ssePadding = 0

    @Option(
        help: .withVariable(
            "clock",
            "How simulated time passes: real (scaled by --speed) or manual (moved by POST /__admin/clock/advance)."))
    var clock: ClockOption = .real

    @Option(
        help: .withVariable(
            "http2",
            "HTTP/2: on (h2 by ALPN on the TLS listener, h2c by prior knowledge on the plain one) or off (HTTP/1.1 only)."
        ))
    var http2: HTTP2Option = .on

    @Option(
        help: .withVariable(
            "readiness",
            "How the server watches its sockets: epoll (the default on Linux) or dispatch (Dispatch sources, the default elsewhere)."
        ))
    var readiness: ReadinessOption = .platformDefault

    @Option(
        help: .withVariable(
            "speed", "Factor every simulated duration is scaled by: 2 runs jobs, TTLs and heartbeats twice as fast."))
    var speed: Double = 1

    @Option(
        help: .withVariable(
            "generation-seconds",
            "Simulated seconds a generation takes (scaled by --speed); default 20, or the scenario's rate."))
    var generationSeconds: Double?

    @Option(
        help: .withVariable(
            "workflow-iterations",
            "Iterations of the scenario's workflow sessions before loop.completed; 0 runs them until completed through the admin API. Default: the scenario's (the built-in s1 runs until completed)."
        ))
    var workflowIterations: Int?

    @Option(
        help: .withVariable(
            "scenario", "A scenario file (JSON): users, workflow sessions and rates; see the README. Default: built in."
        ))
    var scenario: String?

    @Option(
        help: .withVariable(
            "mappings", "A directory of WireMock mapping files (*.json) loaded as stubs at start; reset keeps them."))
    var mappings: String?

    @Flag(
        help: .withVariable(
            "global-response-templating",
            "Render every mapping's response as a template, not only those naming the response-template transformer."))
    var globalResponseTemplating = false

    @Option(
        help: .withVariable(
            "api-key",
            "Key of the workflow API (Authorization: Bearer or X-API-Key); generated and printed at start when not set."
        )
    )
    var apiKey: String?

    @Option(
        help: .withVariable(
            "admin-token",
            "Token every /__admin route but /__admin/health and /__admin/tls/cert.pem asks for (Authorization: Bearer; ?access_token= on /__admin/events); the dashboard asks for it. Default: none, the admin API is open."
        )
    )
    var adminToken: String?

    @Option(
        help: .withVariable(
            "cors",
            "Which web origins may read answers outside /__admin: any (the default), off, or origins separated by commas (http://localhost:3000). Named origins may also use the admin API."
        )
    )
    var cors = "any"

    @Option(
        help: .withVariable(
            "allowed-hosts",
            "More Host names to answer, separated by commas: name, .example.com with its subdomains, or * for any."
        )
    )
    var allowedHosts: String?

    @Option(
        help: .withVariable(
            "proxy",
            "Put the mock in front of your own backend: what no stub and no enabled built-in backend answers goes to this http(s) URL, streamed back."
        )
    )
    var proxy: String?

    @Option(
        help: .withVariable(
            "proxy-ca", "A PEM file of certificates to trust for HTTPS upstreams besides the system's."))
    var proxyCa: String?

    @Flag(help: .withVariable("proxy-insecure", "Skip verifying HTTPS upstreams' certificates (said at start)."))
    var proxyInsecure = false

    @Option(
        help: .withVariable(
            "proxy-timeout", "Seconds an upstream may take to connect and send its response head (0.1 to 3600)."))
    var proxyTimeout: Double = 30

    @Flag(help: .withVariable("proxy-preserve-host", "Send the client's own Host upstream instead of the upstream's."))
    var proxyPreserveHost = false

    @Option(
        help: .withVariable(
            "proxy-token",
            "Where proxied requests carry their session token, for the session overlay and redaction: bearer, header:NAME, cookie:NAME or query:NAME."
        )
    )
    var proxyToken = "bearer"

    @Option(
        help: .withVariable(
            "proxy-allow", "More hosts upstream requests may go to (mappings with proxyBaseUrl), separated by commas."))
    var proxyAllow: String?

    @Option(
        help: .withVariable(
            "record",
            "Record what goes through --proxy; the mapping files are written here on stop."
        )
    )
    var record: String?

    @Option(
        help: .withVariable(
            "backends",
            "The built-in backends served, separated by commas: player, imports, generations, workflows; all without --proxy, none with it unless named."
        )
    )
    var backends: String?

    @Option(help: .withVariable("seed", "Makes ids of simulated things and simulated randomness repeatable."))
    var seed: UInt64?

    @Option(
        help: .withVariable(
            "session-ttl", "Seconds after login when a session expires; 0 keeps sessions until ended otherwise."))
    var sessionTtl: Double = 0

    @Option(
        help: .withVariable(
            "userinfo-idle-timeout",
            "Seconds without an event after which the server closes a user-info stream; 0 never."))
    var userinfoIdleTimeout: Double = 60

    @Option(
        help: .withVariable(
            "ws-ping-interval", "Seconds between the server's pings on the V1 progress WebSocket; 0 sends none."))
    var wsPingInterval: Double = 20

    @Option(
        help: .withVariable(
            "balance-update-variants",
            "Balance-update messages per posting: both, v1 (BALANCE_UPDATE) or v2 (BALANCE_UPDATE_V2)."))
    var balanceUpdateVariants: BalanceUpdateVariants = .both

    @Option(
        help: .withVariable(
            "tls-port",
            "Port of an HTTPS listener beside --port (0 picks a free one); without --tls-cert it uses a self-signed certificate."
        )
    )
    var tlsPort: Int?

    @Option(
        help: .withVariable("tls-cert", "PEM certificate chain, leaf first, for the HTTPS listener (with --tls-key)."))
    var tlsCert: String?

    @Option(help: .withVariable("tls-key", "PEM private key (unencrypted) of --tls-cert."))
    var tlsKey: String?

    @Flag(
        help: .withVariable(
            "tls-self-signed",
            "Generate the HTTPS certificate at start: P-256, SHA-256, SAN localhost, 127.0.0.1, ::1, 824 days; its fingerprint is printed."
        )
    )
    var tlsSelfSigned = false

    @Option(
        help: .withVariable(
            "tls-cert-out",
            "Write the HTTPS certificate (PEM, no key) to this file at start, e.g. to trust it in a client."))
    var tlsCertOut: String?

    @Flag(
        help: .withVariable(
            "sse-gzip", "gzip event streams for clients that accept it; every event and heartbeat is flushed at once."))
    var sseGzip = false

    func run() throws {
        let level = logLevel
        let format = logFormat
        // Log lines go through a bounded queue with a writer thread of its own, so a reader
        // of standard output that stops reading never stops the server (lines are dropped
        // and counted instead).
        guard let lines = LogLineQueue(fileDescriptor: STDOUT_FILENO) else {
            Self.exit(withError: ValidationError("cannot start the thread that writes the log"))
        }
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                format == .json
                ? JSONLogHandler(label: label, lines: lines)
                : StreamLogHandler(label: label, stream: QueuedLogStream(queue: lines))
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "mockbackend")
        lines.onCatchUp { dropped in
            logger.warning(
                "log lines dropped: standard output was not read fast enough", metadata: ["dropped": "\(dropped)"])
        }
        var configuration = appConfiguration
        configuration.droppedLogLines = { lines.droppedCount }
        do {
            configuration.tls = try tlsListener(logger: logger)
        } catch {
            Self.exit(withError: ValidationError("TLS: \(error)"))
        }
        do {
            configuration.proxy = try proxySettings()
        } catch {
            Self.exit(withError: ValidationError("\(error)"))
        }
        let app = MockBackendApp(configuration: configuration, logger: logger)
        do {
            try app.start()
        } catch let error as MappingFileError {
            // A file changed after validate() read it.
            Self.exit(withError: ValidationError("--mappings \(mappings ?? ""): \(error.detail)"))
        } catch {
            Self.exit(withError: ValidationError("cannot listen on \(host):\(port): \(error)"))
        }
        SignalHandling.stopOnTermination(app, output: lines)
        print(
            StartupBanner(
                configuration: configuration, served: app.servedFiles, port: app.port ?? port, tlsPort: app.tlsPort,
                tlsCertificateFile: tlsCertOut, workflowAPIKey: app.workflowAPIKey
            )
            .text)
        fflush(nil)
        dispatchMain()
    }
}

@main
enum Entry {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // The MOCKBACKEND_* variables configure the server. `health` runs in the server's
        // container with the same environment and must not fail on the server's settings
        // (a scenario file it would load and check, say).
        guard arguments.first != HealthCommand.configuration.commandName else {
            MockBackendCommand.main(arguments)
            return
        }
        MockBackendCommand.main(
            EnvironmentOptions.merge(arguments, environment: ProcessInfo.processInfo.environment))
    }
}
