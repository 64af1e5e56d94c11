import MockBackendAPI
import MockBackendHTTP

/// `GET /__admin/imports` and `POST /__admin/imports/{jobId}/fail|pause|resume|complete`.
struct AdminImportRoutes {
    let imports: ImportService

    /// One job in `GET /__admin/imports`.
    static func entry(_ job: ImportJob) -> AdminImport {
        AdminImport(status: job.snapshot, createdAt: job.createdAt, stream: job.stream.name)
    }

    func register(on admin: inout RouterGroup) {
        let imports = imports
        admin.get("/imports") { _ in try .json(imports.all.map(Self.entry)) }
        admin.post("/imports/{jobId}/fail") { request in
            let job = try ImportRoutes.job(request, imports)
            let body = try RequestBody.decode(ImportFailRequest.self, from: request)
            let failed = imports.fail(
                job, code: body.code ?? "IMPORT_FAILED", message: body.message ?? "The import failed (admin).")
            return try Self.answer(failed, job, "it has already finished")
        }
        admin.post("/imports/{jobId}/pause") { request in
            let job = try ImportRoutes.job(request, imports)
            return try Self.answer(imports.setPaused(job, true), job, "only a queued or processing job can pause")
        }
        admin.post("/imports/{jobId}/resume") { request in
            let job = try ImportRoutes.job(request, imports)
            return try Self.answer(imports.setPaused(job, false), job, "only a paused job can resume")
        }
        admin.post("/imports/{jobId}/complete") { request in
            let job = try ImportRoutes.job(request, imports)
            return try Self.answer(imports.complete(job), job, "it has already finished")
        }
    }

    private static func answer(_ done: Bool, _ job: ImportJob, _ reason: String) throws -> HTTPResponse {
        guard done else {
            throw ProblemDetails(
                status: 409, code: "JOB_STATE_CONFLICT", detail: "Job \(job.id) is \(job.snapshot.status): \(reason).")
        }
        return try .json(job.snapshot)
    }
}
