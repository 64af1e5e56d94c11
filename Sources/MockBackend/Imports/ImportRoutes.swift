import MockBackendAPI
import MockBackendHTTP

/// CSV imports (`openapi/openapi.yaml`, tag `imports`): V2 upload, stream and polling, and
/// V1 kept for clients mid-migration. Every body is a `MockBackendAPI` type.
struct ImportRoutes {
    let imports: ImportService
    let endpoint: SSEEndpoint

    func register(on router: inout Router) {
        let imports = imports
        let endpoint = endpoint
        let upload: HTTPHandler = { request in
            let records = try ImportUpload.records(from: request, maxFileBytes: imports.settings.maxFileBytes)
            let job = imports.start(records: records).snapshot
            return try .json(
                ImportAccepted(
                    jobId: job.jobId, status: job.status, sseUrl: "/" + ImportPaths.stream(jobId: job.jobId),
                    estimatedRows: job.totalRows), status: 202)
        }
        router.post("/api/v2/imports", upload)
        router.post("/api/import/csv-gemini", upload)
        router.get("/api/v2/imports/{jobId}/stream") { request in
            let job = try Self.job(request, imports)
            return try endpoint.response(for: request, stream: job.stream)
        }
        router.get("/api/v2/imports/{jobId}") { request in try .json(try Self.job(request, imports).snapshot) }
        router.get("/v1/jobs/{jobId}/status") { request in try .json(try Self.job(request, imports).snapshot) }
        // The V1 progress socket: the job's events as JSON text messages (RFC 6455). An
        // unknown or missing job is refused before any upgrade.
        router.get("/ws/progress") { request in
            let id = request.queryValue("jobId") ?? ""
            guard !id.isEmpty, let job = imports.job(id) else {
                throw ProblemDetails(
                    status: 404, code: "JOB_NOT_FOUND",
                    detail: id.isEmpty ? "Name the import job: /ws/progress?jobId=import_…" : "No import job \(id).")
            }
            let events = endpoint.events
            return .webSocket(upgrading: request) { writer in
                job.stream.attach(writer, request: request, lastEventID: nil, events: events)
            }
        }
    }

    static func job(_ request: HTTPRequest, _ imports: ImportService) throws -> ImportJob {
        let id = request.pathParameters["jobId"] ?? ""
        guard let job = imports.job(id) else {
            throw ProblemDetails(status: 404, code: "JOB_NOT_FOUND", detail: "No import job \(id).")
        }
        return job
    }
}

/// Reads the CSV of an upload: a multipart/form-data body with a `file` part.
enum ImportUpload {
    static func records(from request: HTTPRequest, maxFileBytes: Int) throws -> [[String]] {
        guard let contentType = request.headers["Content-Type"],
            let boundary = MultipartParser.boundary(fromContentType: contentType)
        else {
            throw ProblemDetails.badRequest(
                "The upload must be multipart/form-data with a boundary, with the CSV in a part named 'file'.",
                code: "NOT_MULTIPART")
        }
        let parts: [MultipartPart]
        do {
            parts = try MultipartParser.parse(request.body, boundary: boundary)
        } catch {
            throw ProblemDetails.badRequest(
                "The multipart body is malformed: \(error.detail)", code: "MALFORMED_MULTIPART")
        }
        guard let file = parts.first(where: { $0.name == "file" }) else {
            throw ProblemDetails.badRequest("The upload has no part named 'file'.", code: "MISSING_FILE")
        }
        guard file.body.count <= maxFileBytes else {
            throw ProblemDetails(
                status: 413, code: "PAYLOAD_TOO_LARGE", detail: "The file is larger than \(maxFileBytes) bytes.")
        }
        guard !file.body.isEmpty else {
            throw ProblemDetails.badRequest("The file is empty.", code: "EMPTY_FILE")
        }
        guard !file.body.contains(0), let text = String(validating: file.body, as: UTF8.self) else {
            throw ProblemDetails.badRequest(
                "The file is not CSV text: it is not UTF-8 or holds NUL bytes.", code: "NOT_CSV")
        }
        let records: [[String]]
        do {
            records = try CSVParser.parse(text)
        } catch {
            throw ProblemDetails.badRequest(
                "The file is not valid CSV: \(error.detail) (line \(error.line)).", code: "NOT_CSV")
        }
        guard records.count >= 2 else {
            throw ProblemDetails.badRequest("The CSV has a header but no rows.", code: "NO_ROWS")
        }
        return records
    }
}
