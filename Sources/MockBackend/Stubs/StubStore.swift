import MockBackendAPI
import MockBackendHTTP
import MockBackendSupport

/// The stub mappings in force, in the order WireMock tries them: lower priority number
/// first, then the most recently added first.
///
/// Mappings loaded from files (`--mappings DIR`) are remembered: `reset()` goes back to
/// exactly them, as WireMock's reset does, while `removeAll()` removes them too.
package final class StubStore: Sendable {
    private struct Entry {
        var mapping: StubMapping
        /// Insertion order; a higher number was added later.
        var sequence: UInt64
    }

    private struct State {
        var entries: [Entry] = []
        var fileMappings: [StubMapping] = []
        var nextSequence: UInt64 = 0
        var generator: SeededGenerator?
        var scenarios = ScenarioStates()

        /// Keeps `entries` in matching order.
        mutating func sort() {
            entries.sort { lhs, rhs in
                if lhs.mapping.effectivePriority != rhs.mapping.effectivePriority {
                    return lhs.mapping.effectivePriority < rhs.mapping.effectivePriority
                }
                return lhs.sequence > rhs.sequence
            }
        }

        mutating func append(_ mapping: StubMapping) {
            entries.removeAll { $0.mapping.id == mapping.id }
            entries.append(Entry(mapping: mapping, sequence: nextSequence))
            nextSequence += 1
        }
    }

    private let state: LockedValue<State>

    /// How mappings added through the admin API are read: the flags, the body files.
    package let parseOptions: StubParseOptions

    /// With a `seed` (`--seed`), generated mapping ids repeat from run to run.
    package init(seed: UInt64? = nil, parseOptions: StubParseOptions = StubParseOptions()) {
        state = LockedValue(State(generator: seed.map(SeededGenerator.init)))
        self.parseOptions = parseOptions
    }

    /// A new version 4 UUID for a mapping given without an id.
    package func newID() -> String {
        state.withLock { state in
            guard var generator = state.generator else { return SecureToken.uuid() }
            defer { state.generator = generator }
            return SecureToken.uuid(using: &generator)
        }
    }

    /// Every mapping, in matching order.
    package var all: [StubMapping] {
        state.withLock { $0.entries.map(\.mapping) }
    }

    package func mapping(id: String) -> StubMapping? {
        state.withLock { state in state.entries.first { $0.mapping.id == id }?.mapping }
    }

    /// Adds `mapping` as the most recent; one with the same id is replaced.
    package func add(_ mapping: StubMapping) {
        add([mapping])
    }

    /// Adds `mappings` in order, at once.
    package func add(_ mappings: [StubMapping]) {
        state.withLock { state in
            for mapping in mappings { state.append(mapping) }
            state.sort()
        }
    }

    /// Replaces the mapping with `mapping`'s id in place (its insertion order is kept).
    /// False when there is none.
    package func update(_ mapping: StubMapping) -> Bool {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.mapping.id == mapping.id }) else { return false }
            state.entries[index].mapping = mapping
            state.sort()
            return true
        }
    }

    /// False when there is no mapping with that id.
    package func remove(id: String) -> Bool {
        state.withLock { state in
            let count = state.entries.count
            state.entries.removeAll { $0.mapping.id == id }
            return state.entries.count < count
        }
    }

    /// Removes every mapping, file mappings included; returns how many there were.
    @discardableResult
    package func removeAll() -> Int {
        state.withLock { state in
            defer { state.entries = [] }
            return state.entries.count
        }
    }

    /// Sets the mappings read from files, which `reset()` returns to, and puts them in force.
    package func loadFileMappings(_ mappings: [StubMapping]) {
        state.withLock { state in
            state.fileMappings = mappings
            state.entries = []
            for mapping in mappings { state.append(mapping) }
            state.sort()
        }
    }

    /// Back to the file mappings alone, every scenario in `Started`; the mappings added
    /// since are gone.
    package func reset() {
        state.withLock { state in
            state.entries = []
            for mapping in state.fileMappings { state.append(mapping) }
            state.sort()
            state.scenarios.reset()
        }
    }

    /// The first mapping, in matching order, that may answer `request` from its head alone
    /// (its body patterns taken to hold), if its priority is `priorityAtMost` or less, with
    /// its scenario in the state it requires. Nothing moves: a look ahead (whether a
    /// request's body streams upstream). The admin API (`AdminAPI`) is never stubbed.
    package func match(_ request: HTTPRequest, priorityAtMost: Int = .max) -> StubMapping? {
        find(request, priorityAtMost: priorityAtMost, moving: false)?.mapping
    }

    /// The mapping that answers `request`, as `match` finds it, having moved its scenario
    /// to the mapping's new state in the same step: of many requests racing for one state,
    /// exactly one sees it.
    func matchAndMove(_ request: HTTPRequest, priorityAtMost: Int = .max) -> StubMatch? {
        find(request, priorityAtMost: priorityAtMost, moving: true)
    }

    private func find(_ request: HTTPRequest, priorityAtMost: Int, moving: Bool) -> StubMatch? {
        guard !AdminAPI.contains(path: request.path) else { return nil }
        return state.withLock { state in
            for entry in state.entries {
                guard entry.mapping.effectivePriority <= priorityAtMost else { return nil }
                guard entry.mapping.matches(request, headOnly: !moving) else { continue }
                guard let rule = entry.mapping.scenario else { return StubMatch(mapping: entry.mapping, entered: nil) }
                let key = ScenarioStates.Key(name: rule.name, scope: rule.scope?.token(in: request) ?? "")
                if let required = rule.requiredState, state.scenarios.state(of: key) != required { continue }
                guard moving, let new = rule.newState else { return StubMatch(mapping: entry.mapping, entered: nil) }
                let move = state.scenarios.move(key, to: new)
                return StubMatch(mapping: entry.mapping, entered: ScenarioEntry(key: key, move: move, rule: rule))
            }
            return nil
        }
    }

    // MARK: Scenarios

    /// A clock transition (`StubScenarioRule.Transition`) falls due: the copy moves on if
    /// nothing has moved it since `entry`.
    func transition(after entry: ScenarioEntry, to state: String) {
        _ = self.state.withLock { $0.scenarios.move(entry.key, to: state, ifStillAt: entry.move) }
    }

    /// Every scenario back to `Started`.
    package func resetScenarios() {
        state.withLock { $0.scenarios.reset() }
    }

    /// Every scenario the mappings name, in WireMock's shape, by name.
    package func scenarios() -> [ScenarioSnapshot] {
        state.withLock { state in
            // In the order they were added: the order their author wrote the states in.
            var byName: [String: [StubMapping]] = [:]
            for entry in state.entries.sorted(by: { $0.sequence < $1.sequence }) {
                if let name = entry.mapping.scenario?.name { byName[name, default: []].append(entry.mapping) }
            }
            return byName.keys.sorted().map { name in
                let mappings = byName[name] ?? []
                return ScenarioSnapshot(
                    id: name, name: name, state: state.scenarios.state(of: .init(name: name, scope: "")),
                    possibleStates: Self.possibleStates(of: mappings), mappings: mappings.map(\.json),
                    scopes: state.scenarios.scopedCopies(of: name).map {
                        ScenarioSnapshot.Scope(value: $0.scope, state: $0.state)
                    })
            }
        }
    }

    /// Sets scenario `name` to `newState` (one scope's copy, or every copy); throws when no
    /// mapping names the scenario or the state is none of its own.
    package func setScenario(_ name: String, to newState: String, scope: String?) throws {
        try state.withLock { state in
            let mappings = state.entries.sorted { $0.sequence < $1.sequence }.map(\.mapping).filter {
                $0.scenario?.name == name
            }
            guard !mappings.isEmpty else {
                throw ProblemDetails(
                    status: 404, code: "SCENARIO_NOT_FOUND", detail: "No mapping belongs to a scenario named '\(name)'."
                )
            }
            let possible = Self.possibleStates(of: mappings)
            guard possible.contains(newState) else {
                throw ProblemDetails.badRequest(
                    "Scenario '\(name)' has no state '\(newState)'; its states: \(possible.joined(separator: ", ")).",
                    code: "INVALID_SCENARIO_STATE")
            }
            state.scenarios.set(name, scope: scope, to: newState)
        }
    }

    /// `Started`, then every state the mappings require, move to, or transition to.
    private static func possibleStates(of mappings: [StubMapping]) -> [String] {
        var states = [StubScenarioRule.started]
        for rule in mappings.compactMap(\.scenario) {
            for state in [rule.requiredState, rule.newState, rule.transition?.to].compactMap({ $0 })
            where !states.contains(state) {
                states.append(state)
            }
        }
        return states
    }
}

/// A mapping that answers a request, and the scenario move its match made, if any.
struct StubMatch: Sendable {
    let mapping: StubMapping
    let entered: ScenarioEntry?
}

/// A scenario copy a match moved into the mapping's new state.
struct ScenarioEntry: Sendable {
    let key: ScenarioStates.Key
    /// The move's number (`ScenarioStates`): a transition planned on it acts only if no
    /// other move came after.
    let move: UInt64
    let rule: StubScenarioRule
}
