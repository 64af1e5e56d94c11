import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `GET /openapi.yaml`: the contract document, read from disk on each request so an edited
/// document is served without a restart. Without `--admin-token` the admin operations are
/// served open (`OpenAdminSecurity`); with it the document is served byte for byte.
struct OpenAPIRoutes {
    let documentPath: String
    /// Whether the server was started with `--admin-token`.
    let adminTokenRequired: Bool

    func register(on router: inout Router) {
        let (path, adminTokenRequired) = (documentPath, adminTokenRequired)
        router.get("/openapi.yaml") { _ in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ProblemDetails(
                    status: 404, code: "OPENAPI_NOT_FOUND", detail: "The OpenAPI document is not at \(path).")
            }
            let body =
                adminTokenRequired
                ? Array(data) : Array(OpenAdminSecurity.apply(to: String(decoding: data, as: UTF8.self)).utf8)
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/yaml"], body: .bytes(body))
        }
    }
}
