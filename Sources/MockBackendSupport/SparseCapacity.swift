/// Swift's collections keep their capacity when elements are removed, so a table that held
/// 10,000 connections for a moment holds room for 10,000 until it is dropped. These give
/// that room back once a collection is mostly empty: a copy sized to what is left.
///
/// Call after a removal. The copy costs O(count) and happens only when the capacity is
/// over eight times the count, so removals stay amortised O(1).
extension Dictionary {
    package mutating func shrinkIfSparse() {
        guard capacity > SparseCapacity.smallest, count <= capacity / SparseCapacity.factor else { return }
        var smaller = Self(minimumCapacity: count)
        for (key, value) in self { smaller[key] = value }
        self = smaller
    }
}

extension Array {
    package mutating func shrinkIfSparse() {
        guard capacity > SparseCapacity.smallest, count <= capacity / SparseCapacity.factor else { return }
        var smaller: [Element] = []
        smaller.reserveCapacity(count)
        smaller.append(contentsOf: self)
        self = smaller
    }
}

private enum SparseCapacity {
    /// Below this capacity a collection is left as it is.
    static let smallest = 64
    /// A collection is sparse when its capacity is this many times its count, or more.
    static let factor = 8
}
