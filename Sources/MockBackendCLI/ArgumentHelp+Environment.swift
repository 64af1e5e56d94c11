import ArgumentParser

extension ArgumentHelp {
    /// `text` with the environment variable that sets `option` (its long name) after it, so
    /// `--help` shows each one: `Port to listen on. (env: MOCKBACKEND_PORT)`.
    static func withVariable(_ option: String, _ text: String) -> ArgumentHelp {
        ArgumentHelp("\(text) (env: \(EnvironmentOptions.variableName(for: option)))")
    }
}
