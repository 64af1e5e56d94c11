import MockBackendHTTP
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its standard output and error going to a
/// file.
///
/// Tests start tools and the server binary with this rather than Foundation's `Process`:
/// on Linux `Process.run()` reads `/proc/self/fd` with a fixed-size copy of each entry
/// that can run past the end of glibc's buffer, and crashes the whole test process now and
/// then (swift-corelibs-foundation #5472). The child gets no descriptor of the test process
/// but its standard input, output and error: the tests' sockets must not stay open in it.
package final class ChildProcess: Sendable {
    package let processIdentifier: pid_t
    /// The raw wait status, once the child has ended and been reaped.
    private let waitStatus = LockedValue<Int32?>(nil)

    /// Starts `executable` (a path; no search of `PATH`).
    /// - Parameters:
    ///   - environment: the whole environment; nil passes on the test process's own.
    ///   - directory: the working directory; nil keeps the test process's.
    ///   - input: a file read as standard input; nil gives `/dev/null`.
    ///   - output: the file standard output and error are appended to.
    package init(
        executable: String, arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: String? = nil, output: String
    ) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // A clean signal state: the spawning thread's blocked signals (Dispatch's worker
        // threads block most) and ignored ones would otherwise pass to the child, and a
        // SIGTERM sent to stop it would never arrive.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)

        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        #if canImport(Glibc)
        if let directory { try Self.call(Self.addChangeDirectory, &actions, directory) }
        try Self.call(Self.addCloseFrom, &actions, 3)
        #elseif canImport(Darwin)
        if let directory { posix_spawn_file_actions_addchdir_np(&actions, directory) }
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let environmentStrings = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for string in environmentStrings ?? [] { free(string) } }

        var pid: pid_t = 0
        let result: Int32
        if let environmentStrings {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environmentStrings)
        } else {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard result == 0 else { throw SpawnError(call: "posix_spawn \(executable)", code: result) }
        processIdentifier = pid
    }

    deinit {
        if isRunning { kill(processIdentifier, SIGKILL) }
    }

    /// Whether the child has not ended yet (reaps it when it has).
    package var isRunning: Bool {
        waitStatus.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier { status = raw }
            return status == nil
        }
    }

    /// The exit status, or the number of the signal that ended the child, as Foundation's
    /// `Process.terminationStatus` gives it. Only meaningful once `isRunning` is false.
    package var terminationStatus: Int32 {
        guard let raw = waitStatus.withLock({ $0 }) else { return -1 }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }

    package func terminate() { send(SIGTERM) }
    package func interrupt() { send(SIGINT) }

    package func send(_ signal: Int32) {
        guard isRunning else { return }
        kill(processIdentifier, signal)
    }

    package struct SpawnError: Error, CustomStringConvertible {
        package let call: String
        package let code: Int32
        package var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    #if canImport(Glibc)
    // glibc has both since 2.34, but its headers declare them only for _GNU_SOURCE, which
    // Swift's Glibc module does not define: they are looked up by name instead.
    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let addChangeDirectory: AddChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")
    private static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }

    private static func call(
        _ function: AddChangeDirectory?, _ actions: inout posix_spawn_file_actions_t, _ directory: String
    ) throws(SpawnError) {
        guard let function else { throw SpawnError(call: "posix_spawn_file_actions_addchdir_np", code: ENOSYS) }
        let result = function(&actions, directory)
        guard result == 0 else { throw SpawnError(call: "posix_spawn_file_actions_addchdir_np", code: result) }
    }

    private static func call(_ function: AddCloseFrom?, _ actions: inout posix_spawn_file_actions_t, _ lowest: Int32)
        throws(SpawnError)
    {
        guard let function else { throw SpawnError(call: "posix_spawn_file_actions_addclosefrom_np", code: ENOSYS) }
        let result = function(&actions, lowest)
        guard result == 0 else { throw SpawnError(call: "posix_spawn_file_actions_addclosefrom_np", code: result) }
    }
    #endif
}
