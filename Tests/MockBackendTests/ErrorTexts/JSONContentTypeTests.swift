import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Every route that reads a JSON body checks its `Content-Type` the same way: another type
/// (a form, `text/plain`, multipart) gets 415 `UNSUPPORTED_MEDIA_TYPE` as problem+json, the
/// player login included; JSON with parameters or a `+json` type is read, and so is a body
/// sent without a type.
@Suite("JSON bodies and their Content-Type")
struct JSONContentTypeTests {
    @Test(
        "another type is refused with 415",
        arguments: ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "jsonish"])
    func anotherTypeIsRefused(_ contentType: String) throws {
        let fixture = try JSONRouteFixture()
        for route in JSONRoute.all {
            let answer = fixture.send(route, contentType: contentType)
            #expect(answer.status == 415, "\(route): \(answer.status) \(answer.text)")
            #expect(answer.headers["Content-Type"] == "application/problem+json", "\(route)")
            let problem = try answer.object()
            #expect(problem["code"] == .string("UNSUPPORTED_MEDIA_TYPE"), "\(route)")
            #expect(problem["status"] == .integer(415), "\(route)")
        }
    }

    @Test(
        "JSON in any spelling is read",
        arguments: [
            "application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json",
            nil,
        ])
    func jsonIsRead(_ contentType: String?) throws {
        let fixture = try JSONRouteFixture()
        for route in JSONRoute.all {
            let answer = fixture.send(route, contentType: contentType)
            #expect(answer.status != 415, "\(route) with \(contentType ?? "no type"): \(answer.text)")
        }
    }

    /// The routes above are every operation the document gives a 415, and the document
    /// gives one to every operation with a JSON request body.
    @Test func theDocumentListsTheSameRoutes() throws {
        let document = try String(contentsOfFile: PackageRoot.path + "/openapi/openapi.yaml", encoding: .utf8)
        var (path, method) = ("", "")
        var refusing: Set<String> = []
        var takingJSON: Set<String> = []
        var inRequestBody = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if let match = line.wholeMatch(of: #/  (/\S*):/#) { path = String(match.output.1) }
            if let match = line.wholeMatch(of: #/    (get|post|put|patch|delete):/#) {
                method = match.output.1.uppercased()
                inRequestBody = false
            }
            if line.hasPrefix("      ") && !line.hasPrefix("       ") { inRequestBody = line == "      requestBody:" }
            if inRequestBody && line.hasSuffix("application/json:") { takingJSON.insert("\(method) \(path)") }
            if line.contains(#""415":"#) { refusing.insert("\(method) \(path)") }
        }
        let tested = Set(JSONRoute.all.map(\.description))
        #expect(refusing == tested)
        #expect(takingJSON == tested)
    }
}
