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
