import MockBackendAPI
import Testing

@testable import MockBackend

@Suite("JSONPath for templates")
struct JSONPathQueryTests {
    private let document: JSONValue = .object([
        "store": .object([
            "book": .array([
                .object(["title": .string("A"), "price": .number(8.95), "tags": .array([.string("x")])]),
                .object(["title": .string("B"), "price": .integer(12)]),
                .object(["title": .string("C"), "price": .number(22.99), "isbn": .string("0-553")]),
            ]),
            "name": .string("Shop"),
        ])
    ])

    private func select(_ path: String) throws -> JSONValue? {
        try JSONPathQuery(path).select(in: document)
    }

    @Test func definitePathsSelectOneValue() throws {
        #expect(try select("$.store.name") == .string("Shop"))
        #expect(try select("$['store']['name']") == .string("Shop"))
        #expect(try select("store.name") == .string("Shop"))
        #expect(try select("$.store.book[1].title") == .string("B"))
        #expect(try select("$.store.book[-1].title") == .string("C"))
        #expect(try select("$.store.book.length()") == .integer(3))
        #expect(try select("$.store.nothing") == nil)
        #expect(try select("$.store.book[7]") == nil)
    }

    @Test func otherPathsSelectTheListOfMatches() throws {
        #expect(try select("$.store.book[*].title") == .array([.string("A"), .string("B"), .string("C")]))
        #expect(try select("$..title") == .array([.string("A"), .string("B"), .string("C")]))
        #expect(try select("$.store.book[0,2].title") == .array([.string("A"), .string("C")]))
        #expect(try select("$.store.book[1:].title") == .array([.string("B"), .string("C")]))
        #expect(try select("$.store.book[?(@.price < 10)].title") == .array([.string("A")]))
        #expect(try select("$.store.book[?(@.title == 'B')].price") == .array([.integer(12)]))
        #expect(try select("$.store.book[?(@.isbn)].title") == .array([.string("C")]))
        #expect(try select("$.store.book[?(@.price >= 12)].title") == .array([.string("B"), .string("C")]))
    }

    @Test(arguments: ["$.a[", "$.a[?(x)]", "$.a..", "$.a[x]", "$..", "$.a[?(@.b == nope)]"])
    func aBrokenPathIsRefused(_ path: String) {
        #expect(throws: TemplateSyntaxError.self) { try JSONPathQuery(path) }
    }
}
