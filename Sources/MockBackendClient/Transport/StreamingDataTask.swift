import Foundation
import MockBackendSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a streaming data task reports, in order.
enum TransportEvent: Sendable {
    case response(status: Int, contentType: String?)
    case data(Data)
    case completed(failed: Bool)
}

/// Runs data tasks whose body arrives piece by piece through the delegate, as an
/// `AsyncStream` per task. `URLSession.bytes` does not exist in FoundationNetworking; the
/// data delegate streams in real time on Linux and Apple systems alike.
final class StreamingSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<TransportEvent>.Continuation] = [:]
    private var session: URLSession?
    private let challengeHandler: AuthenticationChallengeHandler?

    /// - Parameters:
    ///   - configuration: the app's own session configuration (TLS settings, proxies,
    ///     extra headers); an ephemeral one without it. Either way the idle timeout is
    ///     applied, and caching is turned off.
    ///   - challengeHandler: answers the session's authentication challenges; without
    ///     one the system's default handling applies.
    init(
        idleTimeout: Duration, configuration: URLSessionConfiguration? = nil,
        challengeHandler: AuthenticationChallengeHandler? = nil
    ) {
        self.challengeHandler = challengeHandler
        super.init()
        let configuration = configuration ?? URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout.seconds
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// A task for `request`, not resumed yet: nothing goes out until the caller resumes it
    /// (or `discard`s it). The stream ends after `.completed`. Cancelling the task ends it
    /// early.
    func makeTask(_ request: URLRequest) -> (URLSessionDataTask, AsyncStream<TransportEvent>)? {
        guard let session = lock.withLock({ self.session }) else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self)
        let task = session.dataTask(with: request)
        lock.withLock { continuations[task.taskIdentifier] = continuation }
        return (task, stream)
    }

    /// Drops a task that was never resumed, and ends its stream.
    func discard(_ task: URLSessionDataTask) {
        task.cancel()
        let continuation = lock.withLock { continuations.removeValue(forKey: task.taskIdentifier) }
        continuation?.finish()
    }

    /// Cancels every task and releases the session.
    func invalidate() {
        let session = lock.withLock { () -> URLSession? in
            defer { self.session = nil }
            return self.session
        }
        session?.invalidateAndCancel()
    }

    private func continuation(for task: URLSessionTask) -> AsyncStream<TransportEvent>.Continuation? {
        lock.withLock { continuations[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        continuation(for: dataTask)?.yield(
            .response(status: http?.statusCode ?? 0, contentType: http?.value(forHTTPHeaderField: "Content-Type")))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation(for: dataTask)?.yield(.data(data))
    }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let challengeHandler else { return completionHandler(.performDefaultHandling, nil) }
        let (disposition, credential) = challengeHandler(challenge)
        completionHandler(disposition, credential)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = lock.withLock { continuations.removeValue(forKey: task.taskIdentifier) }
        continuation?.yield(.completed(failed: error != nil))
        continuation?.finish()
    }
}
