#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of its own, not one of Dispatch's, for a loop that blocks for as long as it
/// runs (an epoll loop waiting for events, a log writer waiting for its reader): a Dispatch
/// worker held that long would be one fewer for everything else.
package enum DetachedThread {
    /// Starts a detached thread that runs `body`; false when the system refuses one.
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let result = pthread_create(&thread, nil, { Unmanaged<Body>.fromOpaque($0).takeRetainedValue().run() }, context)
        if result == 0, let thread { pthread_detach(thread) }
        #else
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                return Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            }, context)
        if result == 0 { pthread_detach(thread) }
        #endif
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        return true
    }

    /// The closure, as the one pointer `pthread_create` passes to the thread.
    private final class Body {
        let body: @Sendable () -> Void

        init(_ body: @escaping @Sendable () -> Void) {
            self.body = body
        }

        func run() -> UnsafeMutableRawPointer? {
            body()
            return nil
        }
    }
}
