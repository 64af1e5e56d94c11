/// A failed socket call, with the `errno` it left and the call that failed.
public struct SocketError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The system call that failed, e.g. `"bind"`.
    public var call: String
    /// The `errno` value the call left.
    public var code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// Builds the error from the current `errno`.
    static func lastError(_ call: String) -> SocketError {
        SocketError(call: call, code: Platform.errno)
    }

    public var description: String {
        "\(call) failed: \(Platform.errorMessage(code)) (errno \(code))"
    }
}
