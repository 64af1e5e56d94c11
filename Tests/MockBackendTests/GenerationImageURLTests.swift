import Foundation
import MockBackend
import MockBackendAPI
import TestSupport
import Testing

/// A completed generation's `imageUrl` loads the way an image view loads it, without
/// headers: it is signed for the session that read the status, and stops loading (403)
/// when that session ends or when the signature is not one the generation gave.
@Suite("Generation image URLs")
struct GenerationImageURLTests {
    /// A completed generation, the session that made it and the `imageUrl` its status gives.
    private func completed(_ app: InMemoryApp) throws -> (id: String, token: String, imageUrl: String) {
        let token = try app.generationToken()
        let id = try app.createGeneration(token: token)
        _ = app.answer("POST", "/__admin/generations/\(id)/complete")
        let status = try app.answer(
            "GET", "/" + GenerationPaths.status(id: id), headers: ["Authorization": "Bearer \(token)"]
        ).object()
        guard case .string(let imageUrl)? = status["imageUrl"] else {
            Issue.record("no imageUrl in \(status)")
            throw CocoaError(.coderValueNotFound)
        }
        return (id, token, imageUrl)
    }

    private func expectRefused(_ answer: InMemoryApp.Response, _ code: String) {
        #expect(answer.status == 403)
        #expect(answer.headers["Content-Type"] == "application/problem+json")
        #expect(answer.text.contains(#""code":"\#(code)""#), "\(answer.text)")
    }

    @Test func theImageURLLoadsWithoutHeaders() throws {
        let app = try InMemoryApp.manual()
        let (_, _, imageUrl) = try completed(app)
        #expect(imageUrl.contains("?signature="))
        let image = app.answer("GET", imageUrl)
        #expect(image.status == 200)
        #expect(image.headers["Content-Type"] == "image/png")
        #expect(image.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func aSignatureTheGenerationNeverGaveIsRefused() throws {
        let app = try InMemoryApp.manual()
        let (id, _, imageUrl) = try completed(app)
        let path = "/" + GenerationPaths.image(id: id)
        expectRefused(app.answer("GET", path + "?signature=0123456789abcdef"), "IMAGE_SIGNATURE_INVALID")
        expectRefused(app.answer("GET", path + "?signature="), "IMAGE_SIGNATURE_INVALID")
        // Another generation's signature does not open this one.
        let (otherID, _, _) = try completed(app)
        let signature = String(imageUrl.split(separator: "=").last ?? "")
        expectRefused(
            app.answer("GET", "/" + GenerationPaths.image(id: otherID) + "?signature=\(signature)"),
            "IMAGE_SIGNATURE_INVALID")
    }

    /// The URL expires with the session that read it; a status read with a new session
    /// gives a URL that loads.
    @Test(arguments: ["expire", "terminate"])
    func theURLExpiresWithItsSession(_ how: String) throws {
        let app = try InMemoryApp.manual()
        let (id, token, imageUrl) = try completed(app)
        _ = app.answer("POST", "/__admin/sessions/\(token)/\(how)")
        expectRefused(app.answer("GET", imageUrl), "IMAGE_SIGNATURE_EXPIRED")

        let fresh = try app.generationToken()
        let status = try app.answer(
            "GET", "/" + GenerationPaths.status(id: id), headers: ["Authorization": "Bearer \(fresh)"]
        ).object()
        guard case .string(let renewed)? = status["imageUrl"] else {
            Issue.record("no imageUrl in \(status)")
            return
        }
        #expect(renewed != imageUrl)
        #expect(app.answer("GET", renewed).status == 200)
    }

    /// A session reads the same URL every time, so a client's cache of it holds.
    @Test func aSessionGetsTheSameURLEachTime() throws {
        let app = try InMemoryApp.manual()
        let (id, token, imageUrl) = try completed(app)
        let again = try app.answer(
            "GET", "/" + GenerationPaths.status(id: id), headers: ["Authorization": "Bearer \(token)"]
        ).object()
        #expect(again["imageUrl"] == .string(imageUrl))
    }

    /// Without a signature the route asks for the bearer token, as before.
    @Test func theBearerTokenStillOpensThePlainPath() throws {
        let app = try InMemoryApp.manual()
        let (id, token, _) = try completed(app)
        let path = "/" + GenerationPaths.image(id: id)
        #expect(app.answer("GET", path).status == 401)
        #expect(app.answer("GET", path, headers: ["Authorization": "Bearer \(token)"]).status == 200)
    }
}
