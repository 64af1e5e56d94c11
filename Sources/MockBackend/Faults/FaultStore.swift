import MockBackendHTTP
import MockBackendSupport

/// The fault rules in force, in the order they were added; the first rule that matches a
/// request and passes its `times` and `probability` fires.
package final class FaultStore: Sendable {
    private let rules = LockedValue<[FaultRule]>([])
    private let ids: IdentifierSource
    private let nextID = LockedValue(1)

    /// `ids` decides probabilities, so `--seed` makes them repeatable.
    package init(ids: IdentifierSource) {
        self.ids = ids
    }

    package var all: [FaultRule] { rules.current }

    /// Adds a rule (already validated) and returns it with its id.
    package func add(_ rule: FaultRule) -> FaultRule {
        var rule = rule
        rule.id =
            "fault_"
            + String(
                nextID.withLock { id in
                    defer { id += 1 }
                    return id
                })
        rules.withLock { $0.append(rule) }
        return rule
    }

    @discardableResult
    package func remove(_ id: String) -> Bool {
        rules.withLock { rules in
            let before = rules.count
            rules.removeAll { $0.id == id }
            return rules.count < before
        }
    }

    @discardableResult
    package func removeAll() -> Int {
        rules.withLock { rules in
            defer { rules = [] }
            return rules.count
        }
    }

    /// The SETTINGS a new HTTP/2 connection announces: a `max_concurrent_streams` rule in
    /// force lowers the stream limit, and counts the connection as fired; it comes back as
    /// `fired`.
    package func http2Settings() -> (settings: HTTP2Settings, fired: FaultRule?) {
        var settings = HTTP2Settings()
        let fired = rules.withLock { rules -> FaultRule? in
            for index in rules.indices {
                guard case .maxConcurrentStreams(let count) = rules[index].fault else { continue }
                if let times = rules[index].times, times <= 0 { continue }
                rules[index].fired += 1
                if let times = rules[index].times { rules[index].times = times - 1 }
                settings.maxConcurrentStreams = UInt32(count)
                return rules[index]
            }
            return nil
        }
        return (settings, fired)
    }

    /// The rule that fires for `request`, counted as fired; nil when none does. A
    /// `max_concurrent_streams` rule acts on connections, not requests, and never fires here;
    /// nor does a `window_stall` on an HTTP/2 request with a body, which acted on the body
    /// (`fireRequestWindowStall`).
    func fire(for request: HTTPRequest) -> FaultRule? {
        fire(for: request) { fault in
            switch fault {
            case .maxConcurrentStreams: false
            case .windowStall: request.version != .http2 || (request.body.isEmpty && request.bodyStream == nil)
            default: true
            }
        }
    }

    /// The `window_stall` rule that fires for the head of an HTTP/2 request with a body,
    /// counted as fired: its stream's window stays shut past `afterBytes` of the body.
    func fireRequestWindowStall(for head: HTTPRequest) -> FaultRule? {
        fire(for: head) { fault in
            if case .windowStall = fault { true } else { false }
        }
    }

    private func fire(for request: HTTPRequest, where applies: (Fault) -> Bool) -> FaultRule? {
        rules.withLock { rules in
            for index in rules.indices where Self.matches(rules[index].match, request) {
                guard applies(rules[index].fault) else { continue }
                if let times = rules[index].times, times <= 0 { continue }
                if let probability = rules[index].probability, probability < 1 {
                    let roll = Double(ids.number(in: 0...999_999)) / 1_000_000
                    guard roll < probability else { continue }
                }
                rules[index].fired += 1
                if let times = rules[index].times { rules[index].times = times - 1 }
                return rules[index]
            }
            return nil
        }
    }

    static func matches(_ match: FaultRule.Match, _ request: HTTPRequest) -> Bool {
        if let method = match.method, method.uppercased() != "ANY", method.uppercased() != request.method.uppercased() {
            return false
        }
        if let path = match.path, !Glob(path).matches(request.path) { return false }
        for (name, value) in match.header ?? [:] where request.headers[name] != value { return false }
        return true
    }
}
