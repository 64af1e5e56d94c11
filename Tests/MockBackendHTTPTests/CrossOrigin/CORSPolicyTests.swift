import MockBackendHTTP
import Testing

/// The CORS decisions without a server: which origins, what a preflight gets, what an
/// answer carries.
@Suite("CORS policy")
struct CORSPolicyTests {
    static let page = "http://localhost:3000"

    static func preflight(origin: String = page, method: String = "POST", headers: String? = "content-type")
        -> HTTPRequest
    {
        var fields: HTTPHeaders = ["Origin": origin, "Access-Control-Request-Method": method]
        if let headers { fields.set("Access-Control-Request-Headers", headers) }
        return HTTPRequest(method: "OPTIONS", target: "/api/auth/login", headers: fields)
    }

    @Test func parsesTheOption() {
        #expect(CORSPolicy(argument: "any")?.mode == .any)
        #expect(CORSPolicy(argument: "OFF")?.mode == .off)
        #expect(
            CORSPolicy(argument: "http://localhost:3000, https://App.example:8443/")?.mode
                == .origins(["http://localhost:3000", "https://app.example:8443"]))
        for bad in ["", "localhost:3000", "ftp://x", "http://x/path", "http://", "http://a b"] {
            #expect(CORSPolicy(argument: bad) == nil, "\(bad)")
        }
    }

    @Test func aPreflightFromAnAllowedOriginIsAllowedWhatItAsks() throws {
        let response = try #require(CORSPolicy(mode: .any).preflightResponse(to: Self.preflight()))
        #expect(response.status == 204)
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(response.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(response.headers["Access-Control-Allow-Methods"] == "POST")
        #expect(response.headers["Access-Control-Allow-Headers"] == "content-type")
        #expect(response.headers["Access-Control-Max-Age"] == "600")
        #expect(response.headers.listContains("Vary", token: "Origin"))
    }

    @Test func aPrivateNetworkPreflightIsAllowed() throws {
        var request = Self.preflight()
        request.headers.set("Access-Control-Request-Private-Network", "true")
        let response = try #require(CORSPolicy(mode: .any).preflightResponse(to: request))
        #expect(response.headers["Access-Control-Allow-Private-Network"] == "true")
    }

    @Test func listedOriginsOnly() {
        let policy = CORSPolicy(mode: .origins(["http://localhost:3000"]))
        #expect(policy.preflightResponse(to: Self.preflight()) != nil)
        #expect(policy.preflightResponse(to: Self.preflight(origin: "http://localhost:3000/")) != nil)
        #expect(policy.preflightResponse(to: Self.preflight(origin: "http://evil.example")) == nil)
        #expect(policy.names("HTTP://LOCALHOST:3000"))
        #expect(!CORSPolicy(mode: .any).names(Self.page), "any allows every origin but names none")
    }

    @Test func offAnswersNoPreflight() {
        #expect(CORSPolicy(mode: .off).preflightResponse(to: Self.preflight()) == nil)
        var response = HTTPResponse(status: 200)
        let request = HTTPRequest(method: "GET", target: "/", headers: ["Origin": Self.page])
        CORSPolicy(mode: .off).decorate(&response, for: request)
        #expect(response.headers.isEmpty)
    }

    @Test func anOptionsRequestWithoutTheRequestMethodIsNoPreflight() {
        let request = HTTPRequest(method: "OPTIONS", target: "/", headers: ["Origin": Self.page])
        #expect(CORSPolicy(mode: .any).preflightResponse(to: request) == nil)
    }

    @Test func answersCarryTheOriginCredentialsAndExposedHeaders() {
        var response = HTTPResponse(status: 403, headers: ["Vary": "Accept-Encoding"])
        let request = HTTPRequest(method: "GET", target: "/", headers: ["Origin": Self.page])
        CORSPolicy(mode: .any).decorate(&response, for: request)
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(response.headers["Access-Control-Allow-Credentials"] == "true")
        let exposed = response.headers["Access-Control-Expose-Headers"] ?? ""
        for name in ["Retry-After", "Last-Event-ID", "X-SessionId"] { #expect(exposed.contains(name)) }
        #expect(response.headers["Vary"] == "Accept-Encoding, Origin")
    }

    @Test func aForeignOriginGetsOnlyVary() {
        var response = HTTPResponse(status: 200)
        let request = HTTPRequest(method: "GET", target: "/", headers: ["Origin": "http://evil.example"])
        CORSPolicy(mode: .origins([Self.page])).decorate(&response, for: request)
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        #expect(response.headers["Vary"] == "Origin")
    }

    @Test(arguments: [
        ("", "Origin"), ("origin", "origin"), ("*", "*"), ("Accept, ORIGIN", "Accept, ORIGIN"),
        ("Accept-Encoding", "Accept-Encoding, Origin"),
    ])
    func varyNamesOriginOnce(_ before: String, _ after: String) {
        var response = HTTPResponse(status: 200, headers: ["Vary": before])
        CORSPolicy(mode: .any).decorate(&response, for: HTTPRequest(method: "GET", target: "/"))
        #expect(response.headers.values(for: "Vary") == [after])
    }
}
