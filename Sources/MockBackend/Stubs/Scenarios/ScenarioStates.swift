/// The states of WireMock scenarios: one copy per scenario and scope value (`""` for a
/// scenario without `scenarioScope`, and for a request that carries no value). A copy never
/// moved is in `Started`. Pure: `StubStore` keeps it under its lock, so a match and the
/// move it makes are one step.
struct ScenarioStates: Sendable {
    struct Key: Hashable, Sendable {
        var name: String
        var scope: String
    }

    /// Each copy's state, and the move that put it there (a later move, or a reset, makes
    /// a clock transition planned on an earlier one do nothing).
    private var states: [Key: (state: String, move: UInt64)] = [:]
    private var moves: UInt64 = 0

    func state(of key: Key) -> String {
        states[key]?.state ?? StubScenarioRule.started
    }

    /// Moves a copy; returns the move's number.
    @discardableResult
    mutating func move(_ key: Key, to state: String) -> UInt64 {
        moves += 1
        states[key] = (state, moves)
        return moves
    }

    /// Moves a copy to `state` if it is still where move number `move` put it.
    mutating func move(_ key: Key, to state: String, ifStillAt move: UInt64) -> Bool {
        guard states[key]?.move == move else { return false }
        self.move(key, to: state)
        return true
    }

    /// Every copy back to `Started`.
    mutating func reset() {
        states = [:]
    }

    /// Sets the copies of scenario `name`: the one of `scope`, or with nil, every copy.
    mutating func set(_ name: String, scope: String?, to state: String) {
        if let scope {
            move(Key(name: name, scope: scope), to: state)
            return
        }
        for key in Array(states.keys) where key.name == name { move(key, to: state) }
        move(Key(name: name, scope: ""), to: state)
    }

    /// The copies of scenario `name` that a client with a scope value has moved, by value.
    func scopedCopies(of name: String) -> [(scope: String, state: String)] {
        states.filter { $0.key.name == name && !$0.key.scope.isEmpty }.map { ($0.key.scope, $0.value.state) }
            .sorted { $0.scope < $1.scope }
    }
}
