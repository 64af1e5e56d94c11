/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1).
///
/// Order and repeated fields are kept as received, so the request journal can show exactly
/// what a client sent.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    public init() { fields = [] }

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    /// The first value of the field, if present.
    public subscript(name: String) -> String? {
        fields.first { Self.equalIgnoringCase($0.name, name) }?.value
    }

    /// Every value of the field, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalIgnoringCase($0.name, name) }.map(\.value)
    }

    /// How many fields of that name there are.
    public func count(of name: String) -> Int {
        fields.reduce(0) { $0 + (Self.equalIgnoringCase($1.name, name) ? 1 : 0) }
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.equalIgnoringCase($0.name, name) }
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field of that name with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equalIgnoringCase($0.name, name) }
    }

    /// Whether a comma-separated field (such as `Connection`) lists `token`, ignoring case.
    public func listContains(_ name: String, token: String) -> Bool {
        values(for: name).contains { value in
            value.split(separator: ",").contains {
                Self.equalIgnoringCase($0.trimmingSpaces(), token)
            }
        }
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison; header names are ASCII tokens.
    package static func equalIgnoringCase<A: StringProtocol, B: StringProtocol>(_ lhs: A, _ rhs: B) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        // Native strings are contiguous UTF-8: compare the bytes in place.
        let contiguous = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                for index in 0..<leftBytes.count where asciiLower(leftBytes[index]) != asciiLower(rightBytes[index]) {
                    return false
                }
                return true
            }
        }
        if let result = contiguous ?? nil { return result }
        return zip(left, right).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    @inline(__always)
    static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and horizontal tabs (HTTP's OWS).
    public func trimmingSpaces() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
