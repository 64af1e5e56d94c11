/// Lets each balance posting through once: the backend sends `BALANCE_UPDATE` and
/// `BALANCE_UPDATE_V2` with the same `postingId`. Remembers the last `capacity` ids.
public struct PostingDeduplicator: Sendable {
    public let capacity: Int
    private var seen: Set<String> = []
    private var order: [String] = []

    public init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// True the first time a posting id is offered.
    public mutating func isNew(_ postingId: String) -> Bool {
        guard seen.insert(postingId).inserted else { return false }
        order.append(postingId)
        if order.count > capacity { seen.remove(order.removeFirst()) }
        return true
    }
}
