import ArgumentParser
import MockBackend
import MockBackendHTTP

/// `--clock`.
enum ClockOption: String, ExpressibleByArgument, CaseIterable {
    case real
    case manual
}

/// What watches the server's sockets (`ReadinessMechanism`): `--readiness`.
enum ReadinessOption: String, ExpressibleByArgument, CaseIterable {
    case epoll
    case dispatch

    static var platformDefault: ReadinessOption {
        ReadinessMechanism.platformDefault == .epoll ? .epoll : .dispatch
    }
}

/// `--http2`: whether connections may speak HTTP/2.
enum HTTP2Option: String, ExpressibleByArgument, CaseIterable {
    case on
    case off
}

/// How log lines are written.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

/// The checks of the command line and the configuration it makes.
extension MockBackendCommand {
    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535, not \(port).")
        }
        guard maxConnections >= 1 else {
            throw ValidationError("--max-connections must be at least 1, not \(maxConnections).")
        }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty.") }
        // Bounded by a year: a larger duration is a typo, and would overflow the timers.
        for (name, value) in [
            ("--heartbeat", heartbeat), ("--session-ttl", sessionTtl),
            ("--userinfo-idle-timeout", userinfoIdleTimeout), ("--ws-ping-interval", wsPingInterval),
        ] where !(value >= 0 && value <= Self.longestDuration) {
            throw ValidationError("\(name) must be from 0 to \(Int(Self.longestDuration)) seconds, not \(value).")
        }
        if let generationSeconds, !(generationSeconds > 0 && generationSeconds <= 86_400) {
            throw ValidationError("--generation-seconds must be above 0 and at most 86400, not \(generationSeconds).")
        }
        if let workflowIterations, !(0...1_000_000).contains(workflowIterations) {
            throw ValidationError("--workflow-iterations must be from 0 to 1000000, not \(workflowIterations).")
        }
        if let scenario {
            do {
                _ = try ScenarioFile.load(path: scenario)
            } catch {
                throw ValidationError("--scenario \(scenario): \(error.detail)")
            }
        }
        if let mappings {
            do {
                _ = try MappingFiles.load(
                    directory: mappings, options: StubParseOptions(globalTemplating: globalResponseTemplating))
            } catch {
                throw ValidationError("--mappings \(mappings): \(error.detail)")
            }
        }
        guard speed > 0, speed <= 10_000, speed.isFinite else {
            throw ValidationError("--speed must be above 0 and at most 10000, not \(speed).")
        }
        guard (0...65536).contains(ssePadding) else {
            throw ValidationError("--sse-padding must be from 0 to 65536 bytes, not \(ssePadding).")
        }
        guard CORSPolicy(argument: cors) != nil else {
            throw ValidationError(
                "--cors must be any, off, or origins such as http://localhost:3000 separated by commas, not \(cors).")
        }
        try validateTLS()
        try validateProxy()
    }

    /// The longest duration an option takes: a year, in seconds.
    static let longestDuration: Double = 365 * 86_400

    var appConfiguration: MockBackendConfiguration {
        var http = HTTPServerConfiguration(host: host, port: port)
        http.maxConnections = maxConnections
        var configuration = MockBackendConfiguration(
            http: http, publicDirectory: publicDir, openAPIDocument: openapiFile)
        configuration.heartbeatInterval = .milliseconds(Int((heartbeat * 1000).rounded()))
        configuration.ssePadding = ssePadding
        configuration.player.sessionTTL = sessionTtl > 0 ? .milliseconds(Int((sessionTtl * 1000).rounded())) : nil
        configuration.player.userInfoIdleTimeout = .milliseconds(Int((userinfoIdleTimeout * 1000).rounded()))
        configuration.http.webSocket.pingInterval = .milliseconds(Int((wsPingInterval * 1000).rounded()))
        configuration.player.balanceUpdateVariants = balanceUpdateVariants
        configuration.clock = clock == .manual ? .manual : .real(speed: speed)
        configuration.http.readiness = readiness == .epoll ? .epoll : .dispatchSources
        configuration.http.http2 = http2 == .on && HTTP2Support.isAvailable
        configuration.seed = seed
        configuration.workflowAPIKey = apiKey
        configuration.adminToken = adminToken
        configuration.cors = CORSPolicy(argument: cors) ?? CORSPolicy(mode: .any)
        configuration.allowedHosts = Self.list(allowedHosts)
        if let generationSeconds {
            configuration.generations.duration = .milliseconds(Int((generationSeconds * 1000).rounded()))
        }
        if let scenario, let loaded = try? ScenarioFile.load(path: scenario) {
            configuration.scenario = loaded
        }
        if let workflowIterations {
            configuration.scenario = configuration.scenario.withWorkflowIterations(
                workflowIterations == 0 ? nil : workflowIterations)
        }
        configuration.mappingsDirectory = mappings
        configuration.globalResponseTemplating = globalResponseTemplating
        configuration.http.compression.compressesEventStreams = sseGzip
        return configuration
    }
}
