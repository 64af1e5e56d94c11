// A build without Swift Testing (a release build with the static standard library, as the
// image's) still builds every target of the package: there this one is empty.
#if canImport(Testing)
import Foundation
import MockBackendSupport
import Testing

/// Runs at most a few test cases carrying this trait at once, process-wide.
///
/// Swift Testing starts every test of a run together. Hundreds of tests that each start a
/// server, open sockets and wait on real timers (idle timeouts, ping intervals, a flood's
/// patience) then share two cores, and a test's task can wait seconds for its turn: long
/// enough to miss a window its server rightly enforces. Admitting a few at a time keeps
/// every test's waits close to what they measure, and the run no slower (the tests mostly
/// wait). The others wait for a slot suspended, holding no thread.
///
/// `MOCKBACKEND_TEST_PARALLELISM` sets how many (default 8).
public struct FewAtATime: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// A scope for each test case, none for the suite itself: a suite holding a slot while
    /// its tests wait for one would deadlock.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await Self.slots.acquire()
        defer { Self.slots.release() }
        try await function()
    }

    static let slots = AsyncSlots(
        count: ProcessInfo.processInfo.environment["MOCKBACKEND_TEST_PARALLELISM"].flatMap { Int($0) }.map {
            max(1, $0)
        } ?? 8)
}

extension Trait where Self == FewAtATime {
    /// See `FewAtATime`.
    public static var fewAtATime: Self { FewAtATime() }
}

/// A counting semaphore for tasks: `acquire` suspends until a slot is free, first come
/// first served.
final class AsyncSlots: Sendable {
    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: LockedValue<State>

    init(count: Int) {
        state = LockedValue(State(free: count))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// How many wait for a slot now.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Hands the slot to the longest waiter, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
#endif
