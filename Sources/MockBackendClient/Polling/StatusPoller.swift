import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads a JSON status URL every `interval` until the job finishes: the polling fallback
/// of a job whose stream is unavailable.
///
/// ```swift
/// let poller = StatusPoller<ImportStatus>(url: statusURL, interval: .seconds(2))
/// for try await status in poller.statuses() { print(status.progress) }
/// ```
/// `statuses()` reads at once, then every `interval` (plus up to `jitter`, drawn from the
/// injected random source) on the injected clock. It yields every
/// status read and finishes after the first final one (see `JobStatus`). Transient
/// failures (5xx, 408, 429, network errors) are retried on the next tick — later when the
/// server sent a longer `Retry-After` — and anything else ends the stream with a
/// `StatusPollingError`: 401/403 `unauthorized`, 404 `notFound`, other statuses
/// `httpStatus`, an unreadable body `malformedStatus`.
public struct StatusPoller<Status: Sendable>: Sendable {
    public let url: URL
    /// Time between reads. The generation API's clients use 5 s.
    public var interval: Duration
    /// Up to this much is added to each `interval`, drawn from `random`, so that clients
    /// that lost their streams together do not poll in step. Default zero.
    public var jitter: Duration
    /// Extra request headers (`Authorization`, ...).
    public var headers: [String: String]
    /// Transient failures in a row after which `statuses()` gives up with the last one;
    /// nil (the default) keeps trying for as long as the caller listens.
    public var maxConsecutiveFailures: Int?
    /// Longest server `Retry-After` honoured; a longer one (or one too large to read)
    /// counts as this, so a broken header cannot park the poller for years. Default 1 hour.
    public var maxRetryAfter: Duration = .seconds(3600)
    private let clock: any Clock<Duration>
    private let random: @Sendable () -> Double
    private let session: URLSession
    private let decode: @Sendable (Data) throws -> Status
    private let isFinal: @Sendable (Status) -> Bool

    /// - Parameters:
    ///   - clock: what the interval is slept on; tests pass their own.
    ///   - random: the jitter source, returning values in 0..<1.
    ///   - decode: turns a 2xx body into a status; a throw ends polling with `malformedStatus`.
    ///   - isFinal: whether a status is the last one.
    public init(
        url: URL, interval: Duration, jitter: Duration = .zero, headers: [String: String] = [:],
        maxConsecutiveFailures: Int? = nil, clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared,
        decode: @escaping @Sendable (Data) throws -> Status, isFinal: @escaping @Sendable (Status) -> Bool
    ) {
        self.url = url
        self.interval = interval
        self.jitter = jitter
        self.headers = headers
        self.maxConsecutiveFailures = maxConsecutiveFailures
        self.clock = clock
        self.random = random
        self.session = session
        self.decode = decode
        self.isFinal = isFinal
    }

    /// Reads the status once.
    /// - Throws: `StatusPollingError`, or `CancellationError` when the calling task is cancelled.
    public func fetch() async throws -> Status {
        switch try await read() {
        case .status(let status): return status
        case .failed(let error, _): throw error
        }
    }

    /// The statuses read, in order, until the first final one. Cancelling the consuming
    /// task, or dropping the stream, stops polling.
    public func statuses() -> AsyncThrowingStream<Status, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Status.self)
        let task = Task { await run(continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(_ continuation: AsyncThrowingStream<Status, any Error>.Continuation) async {
        var failures = 0
        while !Task.isCancelled {
            var delay = PollInterval(base: interval, jitter: jitter).delay(random: random())
            do {
                switch try await read() {
                case .status(let status):
                    failures = 0
                    continuation.yield(status)
                    if isFinal(status) {
                        continuation.finish()
                        return
                    }
                case .failed(let error, let retryAfter):
                    failures += 1
                    guard error.isTransient, failures < maxConsecutiveFailures ?? .max else {
                        continuation.finish(throwing: error)
                        return
                    }
                    if let retryAfter { delay = max(delay, min(retryAfter, maxRetryAfter)) }
                }
                try await clock.sleep(for: delay, tolerance: nil)
            } catch {
                // Only cancellation gets here: the caller stopped listening.
                break
            }
        }
        continuation.finish()
    }

    private enum Reading {
        case status(Status)
        /// With the server's `Retry-After`, when it sent one in seconds.
        case failed(StatusPollingError, retryAfter: Duration?)
    }

    /// A `Retry-After` in seconds, saturating rather than failing on too many digits.
    private static func delaySeconds(_ text: String) -> Duration? {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return .seconds(Int(digits) ?? Int.max)
    }

    private func read() async throws -> Reading {
        var request = URLRequest(url: url)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            return .failed(.unavailable(status: nil), retryAfter: nil)
        }
        guard let http = response as? HTTPURLResponse else {
            return .failed(.unavailable(status: nil), retryAfter: nil)
        }
        switch http.statusCode {
        case 200..<300:
            do {
                return .status(try decode(data))
            } catch {
                return .failed(.malformedStatus(String(describing: error)), retryAfter: nil)
            }
        case 401, 403:
            return .failed(.unauthorized(status: http.statusCode), retryAfter: nil)
        case 404:
            return .failed(.notFound, retryAfter: nil)
        case 408, 425, 429, 500...599:
            // RFC 9110 §10.2.3: Retry-After in seconds (an HTTP-date is ignored here);
            // "delay-seconds = 1*DIGIT", so more digits than an Int holds mean "very long".
            let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap(Self.delaySeconds)
            return .failed(.unavailable(status: http.statusCode), retryAfter: retryAfter)
        default:
            return .failed(.httpStatus(http.statusCode), retryAfter: nil)
        }
    }
}

extension StatusPoller where Status: JobStatus & Decodable {
    /// A poller that decodes `Status` from JSON and stops after a finished or failed one.
    public init(
        url: URL, interval: Duration, jitter: Duration = .zero, headers: [String: String] = [:],
        maxConsecutiveFailures: Int? = nil, clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared
    ) {
        self.init(
            url: url, interval: interval, jitter: jitter, headers: headers,
            maxConsecutiveFailures: maxConsecutiveFailures, clock: clock, random: random, session: session,
            decode: { try JSONDecoder().decode(Status.self, from: $0) }, isFinal: { $0.isFinished || $0.isFailed })
    }
}

/// The wait between two status reads: `base`, plus a share of `jitter` given by a random
/// draw. Pure, so its bounds are tested without a clock.
public struct PollInterval: Sendable, Equatable {
    public var base: Duration
    public var jitter: Duration

    public init(base: Duration, jitter: Duration = .zero) {
        self.base = base
        self.jitter = jitter
    }

    /// `base + jitter × random`, with `random` (meant to be in 0..<1) held to 0...1: always
    /// within `range`, whatever the source returns.
    public func delay(random: Double) -> Duration {
        guard jitter > .zero else { return base }
        return base + jitter * min(max(random.isNaN ? 0 : random, 0), 1)
    }

    /// Every delay `delay(random:)` can return.
    public var range: ClosedRange<Duration> { base...(base + max(jitter, .zero)) }
}
