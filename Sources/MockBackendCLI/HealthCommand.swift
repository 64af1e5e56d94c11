import ArgumentParser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `mockbackend health`: exits 0 when a URL answers 2xx, 1 with the reason otherwise. For
/// container health checks in images without curl.
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Exit 0 if a URL answers 2xx, 1 (with the reason) otherwise; for container health checks.",
        discussion: """
            Sends one plain-HTTP GET and reads only the status line. Without --url it checks \
            http://127.0.0.1:$MOCKBACKEND_PORT/__admin/health (port 8080 when the variable is not set).
            """
    )

    @Option(
        help: "The http:// URL to check. Default: /__admin/health of the server on this machine (proxy mode too)."
    )
    var url: String?

    @Option(help: "Seconds the whole check may take.")
    var timeout: Double = 5

    /// `url`, or the default built from the port variable the server also reads.
    static func defaultURL(environment: [String: String]) -> String {
        let port = environment[EnvironmentOptions.variableName(for: "port")].flatMap(Int.init) ?? 8080
        return "http://127.0.0.1:\(port)/__admin/health"
    }

    var target: String {
        url ?? Self.defaultURL(environment: ProcessInfo.processInfo.environment)
    }

    func validate() throws {
        guard ProbeURL(target) != nil else {
            throw ValidationError("--url must be http://HOST[:PORT][/PATH], not \(target).")
        }
        guard timeout > 0, timeout <= 300, timeout.isFinite else {
            throw ValidationError("--timeout must be above 0 and at most 300 seconds, not \(timeout).")
        }
    }

    func run() throws {
        guard let probeURL = ProbeURL(target) else { throw ExitCode.validationFailure }
        let probe = HealthProbe(url: probeURL, timeout: .milliseconds(Int((timeout * 1000).rounded())))
        let answer: (status: Int, reason: String)
        do {
            answer = try probe.run()
        } catch {
            throw HealthProbeError(description: "unhealthy: \(probeURL): \(error.description)")
        }
        let summary = "\(probeURL) answered \(answer.status) \(answer.reason)"
        guard (200...299).contains(answer.status) else {
            throw HealthProbeError(description: "unhealthy: \(summary)")
        }
        print("healthy: \(summary)")
    }
}
