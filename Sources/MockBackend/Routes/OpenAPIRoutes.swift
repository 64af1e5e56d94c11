import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `GET /openapi.yaml`: the contract document, read from disk on each request so an edited
/// document is served without a restart.
struct OpenAPIRoutes {
    let documentPath: String

    func register(on router: inout Router) {
        let path = documentPath
        router.get("/openapi.yaml") { _ in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ProblemDetails(
                    status: 404, code: "OPENAPI_NOT_FOUND", detail: "The OpenAPI document is not at \(path).")
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/yaml"], body: .bytes(Array(data)))
        }
    }
}
