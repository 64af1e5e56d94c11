/// Seed data: users, workflow sessions, and the rates of the simulated backends. The
/// built-in default is what `mockbackend` serves with no configuration; `--scenario FILE`
/// reads the same format as JSON.
public struct Scenario: Sendable, Equatable, Codable {
    /// A workflow session that exists from the start.
    public struct WorkflowSeed: Sendable, Equatable, Codable {
        public var id: String
        /// Iterations before `loop.completed`; nil (left out of a file): none, the session
        /// runs until completed through the admin API.
        public var iterations: Int?
        /// The hats the session cycles through, e.g. `planner`, `builder`, `reviewer`.
        public var hats: [String]
        /// Simulated seconds between steps.
        public var paceSeconds: Double

        public init(id: String, iterations: Int?, hats: [String], paceSeconds: Double) {
            self.id = id
            self.iterations = iterations
            self.hats = hats
            self.paceSeconds = paceSeconds
        }
    }

    /// Rates and sizes of the simulated backends; each may be left out of a file.
    public struct Rates: Sendable, Equatable, Codable {
        /// CSV rows processed per simulated second. Default 50.
        public var importRowsPerSecond: Double?
        /// Simulated seconds a generation takes. Default 20.
        public var generationSeconds: Double?
        /// Events each stream keeps for replay. Default 1,000.
        public var retention: Int?

        public init(importRowsPerSecond: Double? = nil, generationSeconds: Double? = nil, retention: Int? = nil) {
            self.importRowsPerSecond = importRowsPerSecond
            self.generationSeconds = generationSeconds
            self.retention = retention
        }
    }

    public var users: [UserAccount]
    public var workflows: [WorkflowSeed]
    public var rates: Rates

    public init(users: [UserAccount], workflows: [WorkflowSeed] = [], rates: Rates = Rates()) {
        self.users = users
        self.workflows = workflows
        self.rates = rates
    }

    /// Two players with EUR wallets (`demo` without bonus, `alice` with), and one live
    /// workflow session, `s1`, that runs until completed through the admin API (a soak of any
    /// length finds it live; `--workflow-iterations` bounds it).
    public static let builtIn = Scenario(
        users: [
            UserAccount(
                userId: 7_000_001, username: "demo", email: "demo@example.com", password: "demo1234",
                firstName: "Demo", lastName: "Player", currency: "EUR", realBalance: 745.96, bonusBalance: 0,
                tokens: 10),
            UserAccount(
                userId: 7_000_002, username: "alice", email: "alice@example.com", password: "alice1234",
                firstName: "Alice", lastName: "Liddell", currency: "EUR", realBalance: 120.5, bonusBalance: 25,
                tokens: 3),
        ],
        workflows: [WorkflowSeed(id: "s1", iterations: nil, hats: ["planner", "builder", "reviewer"], paceSeconds: 5)])

    /// This scenario with every workflow session ending after `iterations` iterations; nil:
    /// each runs until completed through the admin API (`--workflow-iterations`, which wins
    /// over the file's).
    public func withWorkflowIterations(_ iterations: Int?) -> Scenario {
        var scenario = self
        for index in scenario.workflows.indices { scenario.workflows[index].iterations = iterations }
        return scenario
    }
}
