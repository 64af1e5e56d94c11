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

    /// With a `seed` (`--seed`), generated mapping ids repeat from run to run.
    package init(seed: UInt64? = nil) {
        state = LockedValue(State(generator: seed.map(SeededGenerator.init)))
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

    /// Back to the file mappings alone; the mappings added since are gone.
    package func reset() {
        state.withLock { state in
            state.entries = []
            for mapping in state.fileMappings { state.append(mapping) }
            state.sort()
        }
    }

    /// The first mapping, in matching order, that answers `request`, if its priority is
    /// `priorityAtMost` or less. The admin API (`AdminAPI`) is never stubbed.
    package func match(_ request: HTTPRequest, priorityAtMost: Int = .max) -> StubMapping? {
        guard !AdminAPI.contains(path: request.path) else { return nil }
        return state.withLock { state in
            for entry in state.entries {
                guard entry.mapping.effectivePriority <= priorityAtMost else { return nil }
                if entry.mapping.matches(request) { return entry.mapping }
            }
            return nil
        }
    }
}
