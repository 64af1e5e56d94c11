import ArgumentParser

/// Reads options from `MOCKBACKEND_<NAME>` variables, so a container is configured without
/// a command line: `--max-connections` is `MOCKBACKEND_MAX_CONNECTIONS`.
///
/// Values from the environment go before the real arguments, so a flag given on the
/// command line wins over the environment.
enum EnvironmentOptions {
    /// Every option that takes a value, by its long name.
    static let valueOptions = [
        "host", "port", "public-dir", "openapi-file", "log-level", "log-format", "max-connections", "heartbeat",
        "sse-padding", "session-ttl", "userinfo-idle-timeout", "ws-ping-interval", "balance-update-variants", "clock",
        "readiness",
        "speed", "seed", "generation-seconds", "workflow-iterations", "scenario", "mappings", "api-key", "admin-token",
        "tls-port",
        "tls-cert", "tls-key", "tls-cert-out", "cors", "allowed-hosts", "proxy", "proxy-ca", "proxy-timeout",
        "proxy-token", "proxy-allow", "record", "backends", "http2",
    ]

    /// Every flag, by its long name; `1`, `true` or `yes` in its variable turns it on.
    static let flags = [
        "tls-self-signed", "sse-gzip", "proxy-insecure", "proxy-preserve-host", "global-response-templating",
    ]

    /// The variable that sets `option`.
    static func variableName(for option: String) -> String {
        "MOCKBACKEND_" + String(option.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    /// `arguments` with an `--option value` pair in front for each variable that is set.
    static func merge(_ arguments: [String], environment: [String: String]) -> [String] {
        var merged: [String] = []
        for option in valueOptions {
            guard let value = environment[variableName(for: option)], !value.isEmpty else { continue }
            merged.append("--\(option)")
            merged.append(value)
        }
        for flag in flags {
            guard let value = environment[variableName(for: flag)]?.lowercased(), ["1", "true", "yes"].contains(value)
            else { continue }
            merged.append("--\(flag)")
        }
        return merged + arguments
    }
}

extension ArgumentHelp {
    /// `text` with the environment variable that sets `option` (its long name) after it, so
    /// `--help` shows each one: `Port to listen on. (env: MOCKBACKEND_PORT)`.
    static func withVariable(_ option: String, _ text: String) -> ArgumentHelp {
        ArgumentHelp("\(text) (env: \(EnvironmentOptions.variableName(for: option)))")
    }
}
