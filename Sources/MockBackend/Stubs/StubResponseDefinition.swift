import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `response` half of a mapping: what the stub answers.
struct StubResponseDefinition: Sendable {
    enum Body: Sendable {
        /// `body`, `base64Body` or `jsonBody`, encoded once when the mapping is added.
        case bytes([UInt8])
        /// `sse`: an event stream written over time.
        case events(StubEventStream)
        /// `webSocket`: messages over a WebSocket, over time.
        case webSocket(StubWebSocketScript)
        /// `proxyBaseUrl`: the answer comes from another server.
        case proxy(StubProxyTarget)

        /// Whether an `sse` stub's event data are templates.
        var hasTemplates: Bool {
            if case .events(let stream) = self { return stream.hasTemplates }
            return false
        }
    }

    var status: Int
    var headers: HTTPHeaders
    var body: Body
    var fixedDelayMilliseconds: Int
    /// The body and header values that are templates, rendered for each request.
    var templates: StubResponseTemplates?

    /// The response for one request; every request gets its own shaper. A proxying mapping's
    /// comes from the forwarder, an `sse` stub plays on the replay services' clock. Fails
    /// only when a template would write more than a render may.
    func response(
        to request: HTTPRequest, pathVariables: [String: String] = [:], services: StubServices
    ) throws(TemplateRenderError) -> HTTPResponse {
        var headers = headers
        var body = body
        if templates != nil || body.hasTemplates {
            let model = TemplateRequestModel.content(
                of: request,
                id: TemplateRandom.value(length: 0, kind: .uuid, uppercase: false, source: services.templates.random),
                pathVariables: pathVariables)
            if let templates {
                headers = try templates.render(headers, services.templates.input(for: model))
                if case .bytes(let bytes) = body {
                    body = .bytes(try templates.render(body: bytes, services.templates.input(for: model)))
                }
            }
            if case .events(let stream) = body {
                body = .events(try stream.rendered { offset in services.templates.input(for: model, after: offset) })
            }
        }
        var response: HTTPResponse
        switch body {
        case .proxy(let target):
            response = services.forwarder.forward(request, to: target.origin, adjustments: target.adjustments)
            if fixedDelayMilliseconds > 0 {
                response.shaper = StubTimingShaper(headDelayMilliseconds: fixedDelayMilliseconds)
            }
        case .bytes(let bytes):
            response = HTTPResponse(status: status, headers: headers, body: .bytes(bytes))
            if fixedDelayMilliseconds > 0 {
                response.shaper = StubTimingShaper(headDelayMilliseconds: fixedDelayMilliseconds)
            }
        case .events(let stream):
            let replay = StubReplay(stream, request: request, services: services.replay)
            response = .stream(status: status, headers: headers) { writer in replay.start(writer) }
            if fixedDelayMilliseconds > 0 {
                response.shaper = StubTimingShaper(headDelayMilliseconds: fixedDelayMilliseconds)
            }
        case .webSocket(let script):
            let replay = StubReplay(script, request: request, services: services.replay)
            response = .webSocket(upgrading: request, headers: headers) { writer in replay.start(writer) }
            if fixedDelayMilliseconds > 0 {
                response.shaper = StubTimingShaper(headDelayMilliseconds: fixedDelayMilliseconds)
            }
        }
        return response
    }

    static let bodyFields = ["body", "base64Body", "jsonBody", "bodyFileName", "sse", "webSocket"]

    static let unsupported: [String: String] = [
        "fault": "; use the fault rules of POST /__admin/faults",
        "delayDistribution": "; use fixedDelayMilliseconds",
        "chunkedDribbleDelay": "; use the fault rules of POST /__admin/faults",
        "transformerParameters": "; a template reads the request and its helpers' arguments only",
        "statusMessage": "; the reason phrase is always the standard one",
    ]

    /// Fields the connection writes itself, and hop-by-hop fields a recorded WireMock file
    /// may carry; a stub's values for them are left out of the response (RFC 9110 §7.6.1).
    static let connectionFields = ["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Date", "Server"]

    /// Reads the `response` object at `path`. Its body, header values and event data are
    /// templates when `transformers` names `response-template`, or for every mapping with
    /// `globalTemplating` (`--global-response-templating`).
    static func parse(
        _ value: JSONValue, path: String, options: StubParseOptions = StubParseOptions()
    ) throws(StubMappingError) -> StubResponseDefinition {
        let reader = try MappingFieldReader(value, path: path)
        try reader.refuseUnknownKeys(
            known: Set(
                ["status", "headers", "fixedDelayMilliseconds", "transformers"] + bodyFields + StubProxyTarget.fields),
            unsupported: unsupported)
        let transformers = try StubResponseTemplates.transformers(reader)
        let templated = options.globalTemplating || transformers.contains("response-template")
        if let target = try StubProxyTarget.parse(reader) {
            if let other = (bodyFields + ["status", "headers"]).first(where: reader.has) {
                throw StubMappingError(field: reader.field(other), "cannot be combined with proxyBaseUrl")
            }
            return StubResponseDefinition(
                status: 200, headers: HTTPHeaders(), body: .proxy(target),
                fixedDelayMilliseconds: try reader.milliseconds("fixedDelayMilliseconds") ?? 0, templates: nil)
        }
        let status = try reader.integer("status") ?? 200
        guard (100...599).contains(status) else {
            throw StubMappingError(field: reader.field("status"), "must be 100-599")
        }
        let given = bodyFields.filter(reader.has)
        if given.count > 1 {
            throw StubMappingError(field: path, "has both \(given[0]) and \(given[1])")
        }
        var headers = try Self.headers(reader)
        var body = Body.bytes([])
        var templateText: String?
        switch given.first {
        case "body":
            templateText = try reader.string("body") ?? ""
            body = .bytes(Array(templateText!.utf8))
        case "base64Body":
            guard let data = Data(base64Encoded: try reader.string("base64Body") ?? "") else {
                throw StubMappingError(field: reader.field("base64Body"), "is not valid base64")
            }
            body = .bytes(Array(data))
        case "bodyFileName":
            let bytes = try StubBodyFile.read(
                try reader.string("bodyFileName") ?? "", field: reader.field("bodyFileName"), options: options)
            body = .bytes(bytes)
            if templated {
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw StubMappingError(
                        field: reader.field("bodyFileName"), "names a file that is not UTF-8 text, so no template")
                }
                templateText = text
            }
        case "jsonBody":
            let json = reader.value("jsonBody") ?? .null
            body = .bytes(Array((try? JSONCoding.encoder.encode(json)) ?? Data()))
            templateText = String(decoding: Self.bytes(of: body), as: UTF8.self)
            if !headers.contains("Content-Type") { headers.add("Content-Type", "application/json") }
        case "sse":
            body = .events(
                try StubEventStream.parse(reader.value("sse") ?? .null, path: reader.field("sse"), templated: templated)
            )
            var streamHeaders = SSEEndpoint.headers
            for (name, value) in headers {
                if streamHeaders.contains(name) { streamHeaders.remove(name) }
                streamHeaders.add(name, value)
            }
            headers = streamHeaders
        case "webSocket":
            if reader.has("status") {
                throw StubMappingError(field: reader.field("status"), "cannot be combined with webSocket (it is 101)")
            }
            body = .webSocket(
                try StubWebSocketScript.parse(reader.value("webSocket") ?? .null, path: reader.field("webSocket")))
        default:
            break
        }
        let templates =
            templated
            ? try StubResponseTemplates.compile(
                body: templateText, bodyField: reader.field(given.first ?? "body"), headers: headers,
                headersField: reader.field("headers"))
            : nil
        return StubResponseDefinition(
            status: status, headers: headers, body: body,
            fixedDelayMilliseconds: try reader.milliseconds("fixedDelayMilliseconds") ?? 0, templates: templates)
    }

    private static func bytes(of body: Body) -> [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }

    /// `{"Name": "value"}`, or `{"Name": ["one", "two"]}` for a field sent more than once.
    private static func headers(_ reader: MappingFieldReader) throws(StubMappingError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard let object = try reader.object("headers") else { return headers }
        for name in object.fields.keys.sorted() {
            let field = object.field(name)
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPToken.isTChar) else {
                throw StubMappingError(field: field, "is not a valid header name")
            }
            var values: [String]
            switch object.value(name) {
            case nil: continue
            case .string(let value): values = [value]
            case .array(let items):
                values = []
                for item in items {
                    guard case .string(let value) = item else {
                        throw StubMappingError(field: field, "must be a string or an array of strings")
                    }
                    values.append(value)
                }
            default:
                throw StubMappingError(field: field, "must be a string or an array of strings")
            }
            // RFC 9110 §5.5: no CR, LF or NUL in a field value (they would end or forge a line).
            if values.contains(where: { $0.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" } }) {
                throw StubMappingError(field: field, "must not contain CR, LF or NUL")
            }
            guard !connectionFields.contains(where: { $0.lowercased() == name.lowercased() }) else { continue }
            for value in values { headers.add(name, value) }
        }
        return headers
    }
}
