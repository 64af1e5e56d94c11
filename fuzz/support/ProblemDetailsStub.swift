// Fuzz build only. `HTTPParseError.problem` names `ProblemDetails`, whose real definition
// (Message/ProblemDetails.swift) pulls in HTTPResponse, JSON coding and the connection's
// body writer. The fuzzer never renders a problem, so this stand-in keeps the build to the
// parser and the few message types it uses. Never part of the SwiftPM build.
public struct ProblemDetails: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var detail: String

    public init(status: Int, code: String, detail: String, title: String? = nil, type: String = "about:blank") {
        self.status = status
        self.code = code
        self.detail = detail
    }
}
