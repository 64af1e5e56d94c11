import MockBackendAPI
import MockBackendHTTP

/// `GET /api/generations/{id}/image.png`: the image of a completed generation, loadable
/// the way an image view loads it, without headers.
///
/// The status's `imageUrl` carries `?signature=`, given to the session that read the
/// status; the URL loads while that session lives, as a signed URL of an image backend
/// loads until it expires. A signature never given answers 403 `IMAGE_SIGNATURE_INVALID`,
/// one whose session has ended (expired, logged out, terminated, its user deleted) 403
/// `IMAGE_SIGNATURE_EXPIRED`. Without a signature the route takes the bearer token, as
/// every generation route does.
struct GenerationImageRoute {
    let generations: GenerationService
    let accounts: AccountStore

    /// A 1×1 transparent PNG: the image of every completed generation.
    static let placeholderImage: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00,
        0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D,
        0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    func register(on router: inout Router) {
        let (generations, accounts) = (generations, accounts)
        let auth = BearerAuthentication(accounts: accounts)
        router.get("/api/generations/{id}/image.png") { request in
            let generation: Generation
            if let signature = request.queryValue(GenerationPaths.imageSignature) {
                generation = try GenerationRoutes.generation(request, generations, userId: nil)
                try Self.check(signature, of: generation, accounts: accounts)
            } else {
                let user = try auth.authenticate(request)
                generation = try GenerationRoutes.generation(request, generations, userId: user.userId)
            }
            guard generation.status == .completed else {
                throw ProblemDetails(status: 404, code: "IMAGE_NOT_READY", detail: "The generation has not completed.")
            }
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "image/png"], body: .bytes(Self.placeholderImage))
        }
    }

    /// Refuses a signature that was never given for this generation, or whose session has ended.
    private static func check(_ signature: String, of generation: Generation, accounts: AccountStore) throws {
        guard !signature.isEmpty, let session = generation.session(signedWith: signature) else {
            throw ProblemDetails(
                status: 403, code: "IMAGE_SIGNATURE_INVALID",
                detail: "The signature of this image URL is not one this generation gave; read its status again.")
        }
        guard case .valid = accounts.check(sessionId: session) else {
            throw ProblemDetails(
                status: 403, code: "IMAGE_SIGNATURE_EXPIRED",
                detail: "This image URL was signed for a session that has ended; log in and read the status again.")
        }
    }
}
