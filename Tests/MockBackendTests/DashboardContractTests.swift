import Foundation
import MockBackendAPI
import MockBackendTesting
import Testing

/// The dashboard's JavaScript names the admin API's vocabularies too: the live feed's event
/// kinds and the fields it shows of each (`Public/js/live-feed.js`), the tint of each kind
/// (`Public/js/panels/journal.js`), and the fault kinds with an example of each
/// (`Public/js/panels/faults.js`). These tests hold them to the
/// Swift types the server and the kit share, so a kind or field added, renamed or dropped on
/// one side fails here rather than in a browser.
@Suite("Dashboard against the admin types")
struct DashboardContractTests {
    static func source(_ path: String) throws -> String {
        try String(contentsOfFile: PackageRoot.path + "/Public/" + path, encoding: .utf8)
    }

    /// The text between `start` and the first `end` after it.
    static func section(of text: String, from start: String, to end: String) throws -> Substring {
        let from = try #require(text.range(of: start), "no \(start)")
        let to = try #require(text.range(of: end, range: from.upperBound..<text.endIndex), "no \(end) after \(start)")
        return text[from.upperBound..<to.lowerBound]
    }

    /// Every capture of `pattern`'s first group in `text`, in order.
    static func captures(_ pattern: String, in text: Substring) throws -> [String] {
        try text.matches(of: Regex(pattern)).compactMap { $0.output[1].substring.map(String.init) }
    }

    @Test func theFeedListensForEveryKindAndNoOther() throws {
        let list = try Self.section(of: Self.source("js/live-feed.js"), from: "FEED_KINDS = [", to: "]")
        #expect(try Self.captures(#""([^"]+)""#, in: list) == AdminFeedEvent.Kind.allCases.map(\.rawValue))
    }

    @Test func theFeedDescribesEveryKindFromFieldsItHas() throws {
        let source = try Self.source("js/live-feed.js")
        let function = try Self.section(of: source, from: "export function describeFeedEvent", to: "    default:")
        let cases = function.components(separatedBy: "    case \"").dropFirst()
        var described: [String] = []
        for text in cases {
            let name = String(text.prefix { $0 != "\"" })
            described.append(name)
            let kind = try #require(AdminFeedEvent.Kind(rawValue: name), "\(name) is not a kind of the feed")
            let fields = Set(AdminFeedEvent.sample(kind).fields.keys).union(["ts"])
            for field in Set(try Self.captures(#"\bd\.(\w+)"#, in: text[...])) {
                #expect(fields.contains(field), "describeFeedEvent reads \(field), which \(name) does not have")
            }
        }
        #expect(described == AdminFeedEvent.Kind.allCases.map(\.rawValue))
    }

    @Test func theFeedListTintsEveryKind() throws {
        let tones = try Self.section(of: Self.source("js/panels/journal.js"), from: "KIND_TONES = {\n", to: "\n};")
        let kinds = tones.split(separator: "\n").map { line in
            line.split(separator: ":", maxSplits: 1)[0].trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        }
        #expect(kinds == AdminFeedEvent.Kind.allCases.map(\.rawValue))
    }

    @Test func theFaultFormOffersEveryKindWithAnExampleTheServerTakes() throws {
        let examples = try Self.section(
            of: Self.source("js/panels/faults.js"), from: "FAULT_EXAMPLES = {\n", to: "\n};")
        var kinds: [String] = []
        for line in examples.split(separator: "\n") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            let kind = String(parts[0])
            kinds.append(kind)
            // `{ ms: 2000 }` as the form posts it: JSON, with the kind.
            let options = parts[1].trimmingCharacters(in: .whitespaces).dropFirst().dropLast()
            let fields = options.trimmingCharacters(in: .whitespaces) == "}" ? "}" : "," + options
            let json =
                "{\"kind\":\"\(kind)\""
                + fields.replacing(try Regex(#"(\w+):"#)) {
                    "\"\($0.output[1].substring ?? "")\":"
                }
            do {
                _ = try JSONDecoder().decode(Fault.self, from: Data(json.utf8))
            } catch {
                Issue.record("the example of \(kind), \(json), is refused: \(error)")
            }
        }
        #expect(kinds == Fault.kinds)
    }
}
