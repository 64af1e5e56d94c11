/// A path glob: `*` matches within one segment, `**` across segments.
package struct Glob: Sendable {
    private let pattern: [Character]

    package init(_ pattern: String) {
        self.pattern = Array(pattern)
    }

    package func matches(_ text: String) -> Bool {
        Self.match(pattern[...], Array(text)[...])
    }

    private static func match(_ pattern: ArraySlice<Character>, _ text: ArraySlice<Character>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == "*" {
            let crossesSegments = pattern.dropFirst().first == "*"
            let rest = pattern.dropFirst(crossesSegments ? 2 : 1)
            var index = text.startIndex
            while true {
                if match(rest, text[index...]) { return true }
                guard index < text.endIndex, crossesSegments || text[index] != "/" else { return false }
                index += 1
            }
        }
        guard let character = text.first, character == first else { return false }
        return match(pattern.dropFirst(), text.dropFirst())
    }
}
