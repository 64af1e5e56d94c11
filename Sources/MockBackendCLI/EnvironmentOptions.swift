/// Reads options from `MOCKBACKEND_<NAME>` variables, so a container is configured without
/// a command line: `--max-connections` is `MOCKBACKEND_MAX_CONNECTIONS`.
///
/// Values from the environment go before the real arguments, so a flag given on the
/// command line wins over the environment.
enum EnvironmentOptions {
    /// Every option that takes a value, by its long name.
    static let valueOptions = [
        "host", "port", "public-dir", "openapi-file", "log-level", "log-format", "max-connections", "heartbeat",
        "sse-padding", "session-ttl", "userinfo-idle-timeout", "balance-update-variants", "clock",
        "speed", "seed", "generation-seconds", "scenario", "mappings", "api-key",
        "admin-token",
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
        return merged + arguments
    }
}
