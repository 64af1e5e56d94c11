import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

@testable import MockBackend

private let corpus = PackageRoot.path + "/Tests/MockBackendTests/Fixtures/wiremock-corpus"

/// Repositories whose stubs run with templating on for every mapping (their own set-up
/// says so: WireMock's `globalTemplating(true)` or `--global-response-templating`).
private let globallyTemplated: Set = ["NHSDigital__integration-adaptor-gp2gp", "hmcts__pcs-api"]

/// The files this server refuses, and the field or helper each refusal names: the list the
/// README gives ("Real mapping directories").
private let expectedRefusals: [String: String] = [
    "hmcts__pcs-api/get-payment-status.json": "uses the template helper 'regexExtract'",
    "hmcts__pcs-api/create-card-payment.json": "uses the template helper 'urlEncode'",
    "hmcts__pcs-api/payment-success.json": "serveEventListeners is not supported",
    "spring-cloud__spring-cloud-contract/transformers.json": "transformers[1] names 'foo-transformer'",
    "NHSDigital__integration-adaptor-gp2gp/migrateStructuredRecord 350MB Attachments.json":
        "response.bodyFileName uses the template helper 'range'",
]

/// One mapping file of the corpus, read as `--mappings` reads it.
private struct CorpusFile {
    var path: String
    var repository: String
    var result: Result<[StubMapping], StubMappingError>
    var json: JSONValue
}

private func loadCorpus() throws -> [CorpusFile] {
    let repositories = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { !$0.hasSuffix(".md") }
        .sorted()
    var files: [CorpusFile] = []
    for repository in repositories {
        let directory = corpus + "/" + repository
        let options = StubParseOptions(
            globalTemplating: globallyTemplated.contains(repository),
            bodyFilesDirectory: MappingFiles.bodyFilesDirectory(for: directory))
        for name in try FileManager.default.contentsOfDirectory(atPath: directory).filter({ $0.hasSuffix(".json") })
            .sorted()
        {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            let result = Result { () throws(StubMappingError) in
                try MappingFiles.parse(bytes, options: options, newID: { UUID().uuidString.lowercased() })
            }
            files.append(CorpusFile(path: repository + "/" + name, repository: repository, result: result, json: json))
        }
    }
    return files
}

/// Real mapping files from public repositories (`Fixtures/wiremock-corpus/ORIGINS.md`):
/// nine in ten load, each refusal names what it refuses, and what loads answers as the
/// mapping says.
@Suite("Real WireMock mapping directories")
struct WireMockCorpusTests {
    @Test func atLeastNineInTenLoadAndEachRefusalNamesWhy() throws {
        let files = try loadCorpus()
        #expect(files.count >= 30)
        #expect(Set(files.map(\.repository)).count >= 5)
        var refused: [String: String] = [:]
        for file in files {
            if case .failure(let error) = file.result { refused[file.path] = error.detail }
        }
        #expect(Double(files.count - refused.count) / Double(files.count) >= 0.9, "\(refused)")
        #expect(
            Set(refused.keys) == Set(expectedRefusals.keys),
            "\(refused.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))")
        for (path, reason) in expectedRefusals {
            #expect(refused[path]?.contains(reason) == true, "\(path): \(refused[path] ?? "loaded")")
        }
        let readme = try String(contentsOfFile: PackageRoot.path + "/README.md", encoding: .utf8)
        for path in expectedRefusals.keys {
            #expect(readme.contains(path), "README's list of refusals misses \(path)")
        }
    }

    /// Each loaded mapping, alone in a server, answers a request built from its own
    /// pattern with its status, its headers and its body (a template rendered, no tag left).
    @Test func whatLoadsAnswersAsTheMappingSays() async throws {
        var answered = 0
        try await withInMemoryApp { app in
            for file in try loadCorpus() {
                guard case .success(let mappings) = file.result else { continue }
                for mapping in mappings {
                    guard let request = SampleRequest(mapping.json) else { continue }
                    _ = app.app.stubs.removeAll()
                    _ = app.answer("POST", "/__admin/scenarios/reset")
                    app.app.stubs.add(mapping)
                    if let scenario = mapping.scenario, let state = scenario.requiredState, state != "Started" {
                        let name = scenario.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
                        let set = app.answer("PUT", "/__admin/scenarios/\(name)/state", body: #"{"state":"\#(state)"}"#)
                        #expect(set.status == 200, "\(file.path): \(set.text)")
                    }
                    let answer = app.answer(
                        request.method, request.target, headers: request.headers, body: request.body)
                    let response = mapping.json.field("response")
                    let status =
                        response?.field("status").flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? 200
                    #expect(answer.status == status, "\(file.path) \(request.target): \(answer.text.prefix(300))")
                    if case .object(let headers)? = response?.field("headers") {
                        for name in headers.keys
                        where !StubResponseDefinition.connectionFields.contains(where: {
                            $0.lowercased() == name.lowercased()
                        }) {
                            #expect(answer.headers[name] != nil, "\(file.path): no \(name) in \(answer.status)")
                        }
                    }
                    #expect(
                        !answer.text.contains("{{") || !Self.templated(mapping.json, file),
                        "\(file.path): \(answer.text.prefix(200))")
                    if !Self.templated(mapping.json, file), let body = response?.field("body"),
                        case .string(let text) = body
                    {
                        #expect(answer.text == text, "\(file.path)")
                    }
                    answered += 1
                }
            }
        }
        #expect(answered >= 50)
    }

    private static func templated(_ mapping: JSONValue, _ file: CorpusFile) -> Bool {
        globallyTemplated.contains(file.repository)
            || mapping.field("response")?.field("transformers") == .array([.string("response-template")])
    }
}

/// A request a mapping's pattern accepts, where one can be made from it: the method, the
/// URL (a pattern's simple parts filled in), the headers and query values it asks for, a
/// body its body patterns take.
private struct SampleRequest {
    var method: String
    var target: String
    var headers: [String: String] = [:]
    var body: String?

    init?(_ mapping: JSONValue) {
        guard let request = mapping.field("request") else { return nil }
        let method = request.field("method").flatMap { if case .string(let m) = $0 { m } else { nil } } ?? "ANY"
        self.method = method == "ANY" ? "GET" : method
        var path: String
        if case .string(let url)? = request.field("url") ?? request.field("urlPath") {
            path = url
        } else if case .string(let pattern)? = request.field("urlPathPattern") ?? request.field("urlPattern") {
            path = Self.sample(of: pattern)
        } else if case .string(let template)? = request.field("urlPathTemplate") {
            path = template
            if case .object(let parameters)? = request.field("pathParameters") {
                for (name, condition) in parameters {
                    guard case .some(.some(let value)) = Self.value(for: condition) else { return nil }
                    path = path.replacingOccurrences(of: "{\(name)}", with: value)
                }
            }
            path = path.replacing(/\{[^}]+\}/, with: "p1")
        } else {
            path = "/"
        }
        var query: [String] = []
        if case .object(let parameters)? = request.field("queryParameters") {
            for (name, condition) in parameters.sorted(by: { $0.key < $1.key }) {
                guard let value = Self.value(for: condition) else { return nil }
                if let value {
                    query.append(
                        "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)")
                }
            }
        }
        if !query.isEmpty { path += (path.contains("?") ? "&" : "?") + query.joined(separator: "&") }
        target = path
        if case .object(let fields)? = request.field("headers") {
            for (name, condition) in fields {
                guard let value = Self.value(for: condition) else { return nil }
                if let value { headers[name] = value }
            }
        }
        if case .array(let patterns)? = request.field("bodyPatterns") {
            var document: [String: JSONValue] = [:]
            for pattern in patterns {
                switch pattern.field("equalToJson") ?? pattern.field("equalTo") ?? pattern.field("contains") {
                case .string(let text)?: body = text
                case let json?: body = String(decoding: (try? JSONEncoder().encode(json)) ?? Data(), as: UTF8.self)
                case nil:
                    guard case .string(let expression)? = pattern.field("matchesJsonPath"),
                        let (name, value) = Self.field(matching: expression)
                    else { return nil }
                    document[name] = value
                }
            }
            if !document.isEmpty {
                body = String(
                    decoding: (try? JSONEncoder().encode(JSONValue.object(document))) ?? Data(), as: UTF8.self)
            }
        }
        if body == nil, ["POST", "PUT", "PATCH"].contains(self.method) { body = "{}" }
    }

    /// A value for a condition: `.some(nil)` for `absent`, nil when none can be made.
    private static func value(for condition: JSONValue) -> String?? {
        switch condition.field("equalTo") ?? condition.field("contains") {
        case .string(let text)?: return .some(text)
        default: break
        }
        if condition.field("absent") == .bool(true) { return .some(nil) }
        if case .string(let pattern)? = condition.field("matches") { return .some(sample(of: pattern)) }
        return nil
    }

    /// A string a simple regular expression matches: each atom once (a class by its first
    /// character, `.` and `\w` as `x`, `\d` as `1`), `{n}` repeating it, the first of
    /// alternatives.
    static func sample(of pattern: String) -> String {
        var characters = Array(pattern.replacingOccurrences(of: "(?i)", with: ""))
        if let bar = characters.firstIndex(of: "|"), !characters.contains("(") {
            characters = Array(characters[..<bar])
        }
        var text = ""
        var last = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            switch character {
            case "^", "$", "(", ")", "+", "*", "?":
                continue
            case "[":
                let end = characters[index...].firstIndex(of: "]") ?? characters.count
                var inside = characters[index..<end]
                if inside.first == "\\", inside.dropFirst().first == "d" { inside = ["1"] }
                last = inside.first.map { String($0) } ?? "x"
                index = end + 1
            case "{":
                let end = characters[index...].firstIndex(of: "}") ?? characters.count
                let count = Int(String(characters[index..<end]).split(separator: ",").first ?? "1") ?? 1
                text += String(repeating: last, count: max(count - 1, 0))
                index = end + 1
                continue
            case ".":
                last = "x"
            case "\\":
                let next = index < characters.count ? characters[index] : "\\"
                index += 1
                last = next == "d" ? "1" : next == "w" ? "x" : String(next)
            default:
                last = String(character)
            }
            text += last
        }
        return text
    }

    /// A field of a JSON object in which `$.name`, `$[?(@.name == value)]` or
    /// `$[?(@.['name'] =~ /regex/)]` finds something.
    private static func field(matching expression: String) -> (String, JSONValue)? {
        if let match = expression.wholeMatch(of: /\$\.([A-Za-z0-9_]+)/) { return (String(match.1), .string("x")) }
        guard let match = expression.wholeMatch(of: /\$\[\?\(@\.?\[?'?([A-Za-z0-9_]+)'?\]? *(==|=~) *(.+)\)\]/) else {
            return nil
        }
        let literal = String(match.3)
        if match.2 == "=~" { return (String(match.1), .string(sample(of: String(literal.dropFirst().dropLast())))) }
        if let value = try? JSONDecoder().decode(
            JSONValue.self, from: Data(literal.replacingOccurrences(of: "'", with: "\"").utf8))
        {
            return (String(match.1), value)
        }
        return nil
    }
}

extension JSONValue {
    fileprivate func field(_ name: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[name] }
        return nil
    }
}
