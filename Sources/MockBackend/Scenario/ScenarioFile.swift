import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a scenario file was refused, naming the field.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var detail: String
    public var description: String { detail }
}

/// Reads a scenario file (`--scenario FILE`): the JSON form of `Scenario`, where a user
/// needs only `username` and `password` and everything else has a default.
///
/// ```json
/// {"users": [{"username": "demo", "password": "demo1234", "userId": 7000001, "currency": "EUR",
///             "balance": 745.96, "bonus": 0, "tokens": 10}],
///  "workflows": [{"id": "s1", "iterations": 12, "hats": ["planner", "builder"], "paceSeconds": 5}],
///  "rates": {"importRowsPerSecond": 50, "generationSeconds": 20, "retention": 1000}}
/// ```
public enum ScenarioFile {
    struct Document: Decodable {
        var users: [NewUser]
        var workflows: [Scenario.WorkflowSeed]?
        var rates: Scenario.Rates?
    }

    public static func load(path: String) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(detail: "cannot read the scenario file \(path)")
        }
        return try parse(data)
    }

    public static func parse(_ data: Data) throws(ScenarioError) -> Scenario {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch let error as DecodingError {
            throw ScenarioError(detail: "scenario: " + RequestBody.describe(error))
        } catch {
            throw ScenarioError(detail: "scenario: \(error)")
        }
        var users: [UserAccount] = []
        var nextUserId = (document.users.compactMap(\.userId).max() ?? 7_000_000) + 1
        for (index, entry) in document.users.enumerated() {
            let field = "users[\(index)]"
            if let problem = entry.problem {
                throw ScenarioError(detail: "scenario: \(field).\(problem.field) \(problem.reason)")
            }
            let user = entry.account(defaultUserId: nextUserId)
            if entry.userId == nil { nextUserId += 1 }
            let clash = users.first { other in
                let sameEmail = other.email.lowercased() == user.email.lowercased()
                return other.userId == user.userId || other.username == user.username || sameEmail
            }
            if let clash {
                throw ScenarioError(
                    detail: "scenario: \(field) repeats the userId, username or email of user \(clash.username)")
            }
            users.append(user)
        }
        let workflows = document.workflows ?? []
        for (index, workflow) in workflows.enumerated() {
            let field = "workflows[\(index)]"
            guard !workflow.id.isEmpty, !workflow.id.contains("/") else {
                throw ScenarioError(detail: "scenario: \(field).id must be a non-empty name without '/'")
            }
            if let iterations = workflow.iterations, iterations < 1 {
                throw ScenarioError(
                    detail: "scenario: \(field).iterations must be 1 or more (left out: until completed by admin)")
            }
            guard !workflow.hats.isEmpty else {
                throw ScenarioError(detail: "scenario: \(field).hats must not be empty")
            }
            guard workflow.paceSeconds > 0, workflow.paceSeconds.isFinite else {
                throw ScenarioError(detail: "scenario: \(field).paceSeconds must be above 0")
            }
            if workflows[..<index].contains(where: { $0.id == workflow.id }) {
                throw ScenarioError(detail: "scenario: \(field).id \(workflow.id) is used twice")
            }
        }
        let rates = document.rates ?? Scenario.Rates()
        if let rate = rates.importRowsPerSecond, !(rate > 0 && rate.isFinite) {
            throw ScenarioError(detail: "scenario: rates.importRowsPerSecond must be above 0")
        }
        if let seconds = rates.generationSeconds, !(seconds > 0 && seconds.isFinite) {
            throw ScenarioError(detail: "scenario: rates.generationSeconds must be above 0")
        }
        if let retention = rates.retention, retention < 1 {
            throw ScenarioError(detail: "scenario: rates.retention must be 1 or more")
        }
        return Scenario(users: users, workflows: workflows, rates: rates)
    }
}
