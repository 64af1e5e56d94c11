import MockBackendAPI
import MockBackendHTTP

/// What to record, as WireMock's `POST /__admin/recordings/start` and `…/snapshot` take it
/// (their field names): `targetBaseUrl`, `filters` (`urlPathPattern`, `method`),
/// `captureHeaders` (`{"Accept": {}, "X-Tenant": {"caseInsensitive": true}}`),
/// `repeatsAsScenarios` (default true), `persist` (accepted; recordings are kept in memory
/// until `stop`, and written to files with `--record`), and mockbackend's own
/// `preserveChunking` (event streams kept write by write, byte for byte).
struct RecordingSpec: Sendable {
    var target: UpstreamOrigin?
    var pathPattern: StubRegex?
    var method: String?
    var capturedHeaders: [(name: String, caseInsensitive: Bool)] = []
    var repeatsAsScenarios = true
    var preserveChunking = false

    static let unsupported: [String: String] = [
        "requestBodyPattern": "; request bodies are not matched",
        "extractBodyCriteria": "; bodies stay inline",
        "transformers": "",
        "transformerParameters": "",
    ]

    /// Reads a request body (`{}` is every default).
    static func parse(body: [UInt8]) throws(StubMappingError) -> RecordingSpec {
        let reader = try MappingFieldReader(try StubMapping.decodeJSON(body), path: "")
        try reader.refuseUnknownKeys(
            known: ["targetBaseUrl", "filters", "captureHeaders", "repeatsAsScenarios", "persist", "preserveChunking"],
            unsupported: unsupported)
        var spec = RecordingSpec()
        if let url = try reader.string("targetBaseUrl") {
            guard let origin = UpstreamOrigin(url: url) else {
                throw StubMappingError(field: "targetBaseUrl", "must be an http:// or https:// URL, not \(url)")
            }
            spec.target = origin
        }
        if let filters = try reader.object("filters") {
            try filters.refuseUnknownKeys(known: ["urlPathPattern", "method"])
            if let pattern = try filters.string("urlPathPattern") {
                guard let regex = StubRegex(pattern) else {
                    throw StubMappingError(field: filters.field("urlPathPattern"), "is not a valid regular expression")
                }
                spec.pathPattern = regex
            }
            if let method = try filters.string("method"), method != "ANY" {
                guard !method.isEmpty, method.utf8.allSatisfy(HTTPToken.isTChar) else {
                    throw StubMappingError(field: filters.field("method"), "must be a method name such as GET, or ANY")
                }
                spec.method = method
            }
        }
        if let headers = try reader.object("captureHeaders") {
            for name in headers.fields.keys.sorted() {
                guard let options = try headers.object(name) else {
                    throw StubMappingError(field: headers.field(name), "must be a JSON object")
                }
                try options.refuseUnknownKeys(known: ["caseInsensitive"])
                spec.capturedHeaders.append((name, try options.bool("caseInsensitive") ?? false))
            }
        }
        _ = try reader.bool("persist")
        spec.repeatsAsScenarios = try reader.bool("repeatsAsScenarios") ?? true
        spec.preserveChunking = try reader.bool("preserveChunking") ?? false
        return spec
    }

    /// Whether an exchange of `method` on `path` is recorded. Called under
    /// `ProxyRecorder`'s lock (`StubRegex`).
    func records(method: String, path: String) -> Bool {
        if let wanted = self.method, wanted != method { return false }
        if let pathPattern, !pathPattern.wholeMatches(path) { return false }
        return true
    }
}
