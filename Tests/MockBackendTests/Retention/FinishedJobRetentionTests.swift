import Foundation
import MockBackend
import MockBackendTesting
import TestSupport
import Testing

/// Finished jobs of every kind are kept up to a bound, oldest finished first out, with their
/// streams; running ones are never forgotten.
@Suite("Finished jobs are kept up to a bound")
struct FinishedJobRetentionTests {
    private func configuration() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        configuration.finishedJobLimit = 2
        return configuration
    }

    private func json(_ response: RawResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func streamNames(_ server: some AppUnderTest) -> Set<String> {
        Set(server.app.streams.all.map(\.name))
    }

    @Test func imports() async throws {
        try await withInMemoryApp(configuration()) { server in
            var ids: [String] = []
            for _ in 0..<5 {
                let accepted = try await upload(server, "title,author\nDune,Herbert\n")
                ids.append(try #require(try json(accepted)["jobId"] as? String))
            }
            // The fourth finishes first, then the first three; the fifth runs on.
            for id in [ids[3], ids[0], ids[1], ids[2]] {
                try await server.admin.imports.complete(id)
            }
            for (index, id) in ids.enumerated() {
                let status = try await server.request("GET", "/api/v2/imports/\(id)").status
                #expect(status == ([3, 0].contains(index) ? 404 : 200), "job \(index)")
                #expect(streamNames(server).contains("imports/\(id)") == ![3, 0].contains(index), "stream \(index)")
            }
        }
    }

    @Test func generations() async throws {
        try await withInMemoryApp(configuration()) { server in
            let login = try await server.request(
                "POST", "/api/auth/login", body: #"{"email":"demo@example.com","password":"demo1234"}"#)
            let token = try #require(try json(login)["token"] as? String)
            var ids: [String] = []
            for _ in 0..<4 {
                let created = try await server.request(
                    "POST", "/api/generations", headers: ["Authorization": "Bearer \(token)"],
                    body: #"{"prompt":"a lighthouse"}"#)
                ids.append(try #require(try json(created)["id"] as? String))
            }
            for id in ids.prefix(3) {
                try await server.admin.generations.fail(id)
            }
            let statuses = try await ids.asyncMap {
                try await server.request("GET", "/api/generations/\($0)", headers: ["Authorization": "Bearer \(token)"])
                    .status
            }
            #expect(statuses == [404, 200, 200, 200])
            #expect(!streamNames(server).contains("generations/\(ids[0])"))
        }
    }

    @Test func workflowSessions() async throws {
        try await withInMemoryApp(configuration()) { server in
            for id in ["a", "b", "c"] {
                try await server.admin.workflows.create(id: id)
                try await server.admin.workflows.complete(id)
            }
            let listed = try await server.admin.workflows.list().map(\.id)
            #expect(!listed.contains("a"))
            #expect(listed.contains("b"))
            #expect(listed.contains("s1"))
            #expect(!streamNames(server).contains("workflows/a"))
            #expect(streamNames(server).contains("workflows/s1"))
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
