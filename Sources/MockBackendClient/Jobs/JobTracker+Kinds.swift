import Foundation
import MockBackendAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension JobTracker where Kind == ImportJobKind {
    /// Follows a CSV import: `/api/v2/imports/{jobId}/stream`, polling
    /// `/api/v2/imports/{jobId}` when the stream gives up.
    public convenience init(
        importJobId jobId: String, baseURL: URL, configuration: JobTrackerConfiguration = .import,
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared
    ) {
        self.init(
            streamURL: baseURL.appendingPathComponent(ImportPaths.stream(jobId: jobId)),
            statusURL: baseURL.appendingPathComponent(ImportPaths.status(jobId: jobId)),
            configuration: configuration, clock: clock, random: random, session: session)
    }
}

extension JobTracker where Kind == ImportJobKind {
    /// Follows a CSV import uploaded through V1 (`POST /api/import/csv-gemini`) the way V1
    /// clients do: its progress WebSocket `GET /ws/progress?jobId=`, and, once the socket
    /// drops, `GET /v1/jobs/{jobId}/status` every 3–5 s (profile `.importV1`).
    ///
    /// The outcome is the one the V2 stream and status give for the same job.
    /// - Parameters:
    ///   - baseURL: the server, `http(s)://host:port`; the socket is on the same host and
    ///     port with `ws(s)://`.
    ///   - transport: opens the socket. URLSession's does not work on Linux (see
    ///     `URLSessionWebSocketTransport`); tests there pass `LoopbackWebSocketTransport`.
    public convenience init(
        v1ImportJobId jobId: String, baseURL: URL, configuration: JobTrackerConfiguration = .importV1,
        transport: any WebSocketTransport = URLSessionWebSocketTransport(),
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared
    ) {
        self.init(
            socketURL: Self.progressSocketURL(baseURL: baseURL, jobId: jobId),
            statusURL: baseURL.appendingPathComponent(ImportPaths.statusV1(jobId: jobId)),
            configuration: configuration, transport: transport, clock: clock, random: random, session: session)
    }

    /// `ws(s)://host:port/ws/progress?jobId=…` for a server at `baseURL`.
    static func progressSocketURL(baseURL: URL, jobId: String) -> URL {
        let url = baseURL.appendingPathComponent(ImportPaths.progressWebSocket)
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        switch components.scheme?.lowercased() {
        case "https", "wss": components.scheme = "wss"
        default: components.scheme = "ws"
        }
        components.queryItems = [URLQueryItem(name: ImportPaths.progressWebSocketJobParameter, value: jobId)]
        return components.url ?? url
    }
}

extension JobTracker where Kind: WebSocketJobKind {
    /// Follows a job on its WebSocket, decoding each text message with
    /// `Kind.event(fromMessage:)`, and polls `statusURL` once the socket drops.
    /// - Parameters:
    ///   - transport: opens the socket; URLSession's by default.
    ///   - clock: what the silence watchdog, poll intervals and pauses are measured on.
    ///   - random: the source of the polling jitter, returning values in 0..<1.
    public convenience init(
        socketURL: URL, statusURL: URL, configuration: JobTrackerConfiguration = .importV1,
        transport: any WebSocketTransport = URLSessionWebSocketTransport(),
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared
    ) {
        self.init(
            streamURL: socketURL, statusURL: statusURL,
            events: .webSocket(transport, decode: { try Kind.event(fromMessage: $0) }), configuration: configuration,
            clock: clock, random: random, session: session)
    }
}

extension JobTracker where Kind == GenerationJobKind {
    /// Follows an image generation with a bearer token from `POST /api/auth/login`:
    /// `/api/generations/{id}/progress`, polling `/api/generations/{id}` every 5 s when the
    /// stream gives up after 1, 2, 4, 8, 8 s.
    public convenience init(
        generationId id: String, baseURL: URL, token: String, configuration: JobTrackerConfiguration = .generation,
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, session: URLSession = .shared
    ) {
        var configuration = configuration
        configuration.headers["Authorization"] = "Bearer \(token)"
        self.init(
            streamURL: baseURL.appendingPathComponent(GenerationPaths.progress(id: id)),
            statusURL: baseURL.appendingPathComponent(GenerationPaths.status(id: id)),
            configuration: configuration, clock: clock, random: random, session: session)
    }
}
