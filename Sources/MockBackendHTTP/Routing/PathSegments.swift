#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The segments of a request path as routing reads them; every routing decision
/// (`Router.resolve`, `RoutePrefix.contains`) reads a path through this one definition, so
/// the group a path belongs to and the route it reaches cannot disagree.
///
/// - The path is split at each `/` byte and empty segments are dropped: `//a//b/` is `a`, `b`.
/// - Segments stay percent-encoded: `%2F` is data inside a segment, not a delimiter
///   (RFC 3986 §2.2), so `/a%2Fb` is the one segment `a%2Fb`.
/// - Dot segments are segments like any other. The target is routed as it was sent; the
///   dot-segment removal of RFC 3986 §5.2.4 belongs to resolving a reference, which a client
///   does before it sends one. So `/a/../b` has three segments, `a`, `..` and `b`: it is
///   routed under `/a`, never as `/b`.
///
/// Iterating allocates nothing: each segment is a `Substring` of the path.
package struct PathSegments: Sequence, Sendable {
    private let path: String

    package init(_ path: String) {
        self.path = path
    }

    package func makeIterator() -> Iterator {
        Iterator(path: path, position: path.utf8.startIndex)
    }

    package struct Iterator: IteratorProtocol {
        let path: String
        var position: String.Index

        package mutating func next() -> Substring? {
            let bytes = path.utf8
            let slash = UInt8(ascii: "/")
            var start = position
            while start < bytes.endIndex, bytes[start] == slash { start = bytes.index(after: start) }
            guard start < bytes.endIndex else {
                position = start
                return nil
            }
            var end = bytes.index(after: start)
            while end < bytes.endIndex, bytes[end] != slash { end = bytes.index(after: end) }
            position = end
            // Both ends sit next to a `/` byte (or at an end of the path), so on scalar
            // boundaries: the slice is valid.
            return path[start..<end]
        }
    }
}

extension Substring {
    /// Whether the segment's bytes are `literal`'s: routing compares as bytes (RFC 3986
    /// §6.2.1), a request target being ASCII. Compares contiguous UTF-8 in place.
    func hasSameBytes(as literal: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { segment in
            literal.utf8.withContiguousStorageIfAvailable { literal in
                segment.count == literal.count
                    && (segment.isEmpty || memcmp(segment.baseAddress!, literal.baseAddress!, segment.count) == 0)
            }
        }
        if let compared = compared ?? nil { return compared }
        return utf8.elementsEqual(literal.utf8)
    }
}
