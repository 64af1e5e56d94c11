import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `GET /openapi.yaml` (and `/__admin/openapi.yaml`, `AdminFileRoutes`): the contract document. By default the copy built into the module
/// (`EmbeddedResources`); with `--openapi-file` a file read from disk on each request, so an
/// edited document is served without a restart. Without `--admin-token` the admin
/// operations are served open (`OpenAdminSecurity`); with it the document is served byte
/// for byte.
struct OpenAPIRoutes {
    /// A file to read on each request; nil serves the built-in copy.
    let documentPath: String?
    /// Whether the server was started with `--admin-token`.
    let adminTokenRequired: Bool

    func register(on router: inout Router) {
        router.get("/openapi.yaml") { [self] _ in try document() }
    }

    /// The answer with the document, as `GET /openapi.yaml` (and `/__admin/openapi.yaml`)
    /// give it.
    func document() throws -> HTTPResponse {
        let body: [UInt8]
        if let documentPath {
            body = try Self.document(at: documentPath, adminTokenRequired: adminTokenRequired)
        } else if adminTokenRequired {
            body = EmbeddedResources.openAPIDocument.bytes
        } else {
            body = EmbeddedResources.openAPIDocumentWithOpenAdmin
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/yaml"], body: .bytes(body))
    }

    /// The document at `path` as served; 404 `OPENAPI_NOT_FOUND` when it cannot be read.
    private static func document(at path: String, adminTokenRequired: Bool) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProblemDetails(
                status: 404, code: "OPENAPI_NOT_FOUND", detail: "The OpenAPI document is not at \(path).")
        }
        guard !adminTokenRequired else { return Array(data) }
        return Array(OpenAdminSecurity.apply(to: String(decoding: data, as: UTF8.self)).utf8)
    }
}
