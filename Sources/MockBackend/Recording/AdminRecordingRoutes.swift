import MockBackendAPI
import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// WireMock's recording routes: start recording what goes through the proxy, see where it
/// stands, stop it (its mappings answered, and added to the server as WireMock does), or
/// take a snapshot of it so far; and the mapping directory as a tar, for the dashboard.
struct AdminRecordingRoutes {
    let recorder: ProxyRecorder
    let stubs: StubStore
    /// Whether requests may go to a host (`--proxy-allow`, the `--proxy` host).
    let allowsProxyHost: @Sendable (String) -> Bool

    func register(on admin: inout RouterGroup) {
        let recorder = recorder
        let stubs = stubs
        let allows = allowsProxyHost
        admin.post("/recordings/start") { request in
            let spec = try Self.spec(of: request)
            if let host = spec.target?.host, !allows(host) {
                throw ProblemDetails(
                    status: 400, code: "PROXY_HOST_NOT_ALLOWED",
                    detail:
                        "targetBaseUrl names \(host), which is not an allowed upstream; start with --proxy-allow \(host)."
                )
            }
            guard recorder.start(spec) else {
                throw ProblemDetails(
                    status: 409, code: "RECORDING_IN_PROGRESS",
                    detail: "A recording is running; POST /__admin/recordings/stop ends it.")
            }
            return try .json(RecordingStatus(status: recorder.status.rawValue))
        }
        admin.post("/recordings/stop") { _ in
            guard let mappings = recorder.stop() else {
                throw ProblemDetails(
                    status: 409, code: "NOT_RECORDING",
                    detail: "No recording is running; POST /__admin/recordings/start starts one.")
            }
            for mapping in mappings {
                if let stub = try? StubMapping.parse(mapping, options: stubs.parseOptions, newID: stubs.newID) {
                    stubs.add(stub)
                }
            }
            return try .json(RecordedMappingList(mappings: mappings))
        }
        admin.get("/recordings/status") { _ in try .json(RecordingStatus(status: recorder.status.rawValue)) }
        admin.get("/recordings/mappings.tar") { _ in
            guard let mappings = recorder.currentMappings else {
                throw ProblemDetails(
                    status: 404, code: "NO_RECORDING",
                    detail: "No recording has started; POST /__admin/recordings/start starts one.")
            }
            let archive = RecordingFiles.archive(mappings, modified: Int(Date().timeIntervalSince1970))
            return HTTPResponse(
                status: 200,
                headers: [
                    "Content-Type": "application/x-tar",
                    "Content-Disposition": #"attachment; filename="mockbackend-recording.tar""#,
                ], body: .bytes(archive))
        }
        admin.post("/recordings/snapshot") { request in
            try .json(RecordedMappingList(mappings: recorder.snapshot(try Self.spec(of: request))))
        }
    }

    /// The request's recording spec; 400 `INVALID_RECORDING_SPEC` naming the field.
    private static func spec(of request: HTTPRequest) throws -> RecordingSpec {
        do {
            return try RecordingSpec.parse(body: try RequestBody.json(of: request))
        } catch let error as StubMappingError {
            throw ProblemDetails(status: 400, code: "INVALID_RECORDING_SPEC", detail: error.detail)
        }
    }
}

/// `{"status": "Recording"}`.
struct RecordingStatus: Codable, Sendable {
    var status: String
}

/// `{"mappings": [...]}`.
struct RecordedMappingList: Codable, Sendable {
    var mappings: [JSONValue]
}
