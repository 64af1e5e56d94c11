#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock that travels with it. A pthread mutex rather than
/// `Synchronization.Mutex` (which needs newer Apple systems) or `NSLock` (which would pull
/// all of Foundation into the server).
package final class LockedValue<Value>: @unchecked Sendable {
    // Usable from inlined code: `withLock` is inlined into its callers in other modules,
    // where a generic call with a closure cost more than the lock itself.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// A copy of the current value.
    @inlinable
    package var current: Value { withLock { $0 } }
}
