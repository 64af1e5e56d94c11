/// The 201 answer to `POST /api/generations`: the generation is queued, one token spent.
/// Schema `GenerationCreated` in `openapi/openapi.yaml`.
public struct GenerationCreated: Codable, Sendable, Equatable {
    /// `gen_` and twelve hex digits: the id of the status and progress routes.
    public var id: String
    /// `queued`.
    public var status: GenerationState
    /// 0.
    public var progress: Double

    public init(id: String, status: GenerationState = .queued, progress: Double = 0) {
        self.id = id
        self.status = status
        self.progress = progress
    }
}

/// `GET /api/tokens/balance`: the generation tokens the user has left; each generation
/// spends one. Schema `TokenBalance` in `openapi/openapi.yaml`.
public struct TokenBalance: Codable, Sendable, Equatable {
    /// Tokens left.
    public var balance: Int

    public init(balance: Int) {
        self.balance = balance
    }
}

/// The paths of the generation API, relative to the server's base URL. Every route but
/// `login` takes `Authorization: Bearer <token>` from `POST /api/auth/login`.
public enum GenerationPaths {
    /// `POST` `{"email","password"}`: a bearer token.
    public static let login = "api/auth/login"

    /// `GET`: the tokens left.
    public static let tokenBalance = "api/tokens/balance"

    /// `POST` `{"prompt"}`: starts a generation.
    public static let create = "api/generations"

    /// `GET`: the generation's status, for polling.
    public static func status(id: String) -> String { "api/generations/\(id)" }

    /// `GET`: the generation's progress stream.
    public static func progress(id: String) -> String { "api/generations/\(id)/progress" }

    /// `GET`: the image of a completed generation, with a bearer token.
    public static func image(id: String) -> String { "api/generations/\(id)/image.png" }

    /// The query parameter of a signed image URL.
    public static let imageSignature = "signature"

    /// `GET` without headers: the image, as the status's `imageUrl` names it, signed for the
    /// session that read the status.
    public static func signedImage(id: String, signature: String) -> String {
        image(id: id) + "?\(imageSignature)=\(signature)"
    }
}
