import MockBackendAPI
import MockBackendHTTP

/// `GET /__admin/generations` and `POST /__admin/generations/{id}/fail|complete`.
struct AdminGenerationRoutes {
    let generations: GenerationService

    /// One generation in `GET /__admin/generations`.
    static func entry(_ generation: Generation) -> AdminGeneration {
        AdminGeneration(
            status: generation.snapshot, userId: generation.userId, prompt: generation.prompt,
            stream: generation.stream.name)
    }

    func register(on admin: inout RouterGroup) {
        let generations = generations
        admin.get("/generations") { _ in try .json(generations.all.map(Self.entry)) }
        admin.post("/generations/{id}/fail") { request in
            let generation = try GenerationRoutes.generation(request, generations, userId: nil)
            let body = try RequestBody.decode(GenerationFailRequest.self, from: request)
            let failed = generations.fail(
                generation, code: body.code ?? "GENERATION_FAILED",
                message: body.message ?? "The generation failed (admin).")
            return try Self.answer(failed, generation)
        }
        admin.post("/generations/{id}/complete") { request in
            let generation = try GenerationRoutes.generation(request, generations, userId: nil)
            return try Self.answer(generations.complete(generation), generation)
        }
    }

    private static func answer(_ done: Bool, _ generation: Generation) throws -> HTTPResponse {
        let snapshot = generation.snapshot
        guard done else {
            throw ProblemDetails(
                status: 409, code: "GENERATION_FINISHED",
                detail: "Generation \(generation.id) is already \(snapshot.status).")
        }
        return try .json(snapshot)
    }
}
