import MockBackendHTTP

/// The API key check of every `/api/sessions` route: `Authorization: Bearer <key>`
/// (RFC 6750 §2.1) or `X-API-Key: <key>`. Either header may carry it; a request that
/// presents the key in one of them passes.
struct WorkflowAuthentication: Sendable {
    let key: String

    func check(_ request: HTTPRequest) throws {
        var presented: [Substring] = []
        if let authorization = request.headers["Authorization"] {
            // The scheme is case-insensitive (RFC 9110 §11.1); anything but Bearer counts as a wrong key.
            let parts = authorization.trimmingSpaces().split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                presented.append(parts[1].trimmingSpaces())
            } else {
                presented.append("")
            }
        }
        if let header = request.headers["X-API-Key"] { presented.append(header.trimmingSpaces()) }
        guard !presented.isEmpty else { throw WorkflowUnauthorized(keyPresented: false) }
        guard presented.contains(where: { Self.equalInConstantTime($0, key) }) else {
            throw WorkflowUnauthorized(keyPresented: true)
        }
    }

    /// Compares without stopping at the first difference, so timing tells nothing of the key.
    static func equalInConstantTime(_ presented: Substring, _ key: String) -> Bool {
        let lhs = Array(presented.utf8)
        let rhs = Array(key.utf8)
        var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
        for index in 0..<rhs.count {
            difference |= rhs[index] ^ (index < lhs.count ? lhs[index] : ~rhs[index])
        }
        return difference == 0 && !rhs.isEmpty
    }
}

/// 401 `UNAUTHORIZED` with `WWW-Authenticate: Bearer` — with `error="invalid_token"` when
/// a key was presented but is wrong (RFC 6750 §3).
struct WorkflowUnauthorized: HTTPResponseError {
    let keyPresented: Bool

    var response: HTTPResponse {
        let detail =
            keyPresented
            ? "The API key is wrong." : "An API key is required: Authorization: Bearer <key>, or X-API-Key: <key>."
        var response = ProblemDetails(status: 401, code: "UNAUTHORIZED", detail: detail).response
        response.headers.set(
            "WWW-Authenticate", keyPresented ? #"Bearer error="invalid_token""# : "Bearer")
        return response
    }
}
