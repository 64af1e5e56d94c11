import Foundation
import MockBackend
import MockBackendAPI
import MockBackendTesting
import ServerSentEvents
import TestSupport
import Testing

/// A multipart/form-data body with one `file` part, as `curl -F file=@books.csv` sends it.
func multipartUpload(_ csv: String, name: String = "file", contentType: String = "text/csv") -> (String, String) {
    let boundary = "------------------------d74496d66958873e"
    let body =
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"books.csv\"\r\n"
        + "Content-Type: \(contentType)\r\n\r\n\(csv)\r\n--\(boundary)--\r\n"
    return ("multipart/form-data; boundary=\(boundary)", body)
}

/// A CSV with a header and `rows` rows; every `badEvery`-th row has a missing column.
func booksCSV(rows: Int, badEvery: Int = 0) -> String {
    var lines = ["title,author,year"]
    for index in 1...rows {
        if badEvery > 0, index % badEvery == 0 {
            lines.append("\"Book, \(index)\",Author \(index)")
        } else {
            lines.append("\"Book, \(index)\",\"Author \"\"\(index)\"\"\",\(1900 + index)")
        }
    }
    return lines.joined(separator: "\r\n") + "\r\n"
}

func upload(_ server: some AppUnderTest, _ csv: String, path: String = "/api/v2/imports") async throws -> RawResponse {
    let (contentType, body) = multipartUpload(csv)
    return try await server.request("POST", path, headers: ["Content-Type": contentType], body: body)
}

private struct Accepted: Decodable {
    var jobId: String
    var status: String
    var sseUrl: String
    var estimatedRows: Int
}

private func events(_ body: [UInt8]) -> [ServerSentEvent] {
    var parser = SSEParser()
    return parser.feed(body).compactMap { if case .event(let event) = $0 { event } else { nil } }
}

@Suite("CSV imports")
struct ImportRoutesTests {
    static func manual() -> MockBackendConfiguration {
        var configuration = MockBackendConfiguration.forTesting()
        configuration.clock = .manual
        configuration.seed = 7
        return configuration
    }

    @Test func uploadAnswers202WithTheJob() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let response = try await upload(server, booksCSV(rows: 150, badEvery: 10))
            #expect(response.status == 202)
            let accepted = try JSONDecoder().decode(Accepted.self, from: Data(response.body))
            #expect(accepted.jobId.hasPrefix("import_"))
            #expect(accepted.status == "queued")
            #expect(accepted.sseUrl == "/api/v2/imports/\(accepted.jobId)/stream")
            #expect(accepted.estimatedRows == 150)
        }
    }

    /// With a manual clock a 150-row import advanced in steps gives the same events in the
    /// same order on every run, and polling after each step matches the last event.
    @Test func manualClockImportIsRepeatableAndPollingMatchesTheStream() async throws {
        var runs: [[ServerSentEvent]] = []
        for _ in 0..<2 {
            let transcript = try await withInMemoryApp(Self.manual()) { server -> [ServerSentEvent] in
                let accepted = try JSONDecoder().decode(
                    Accepted.self, from: Data(try await upload(server, booksCSV(rows: 150, badEvery: 10)).body))
                let stream = try await server.openStream("\(accepted.sseUrl)")
                try await stream.receive(untilContains: "retry: 5000")
                var finished = false
                while !finished {
                    try await server.admin.clock.advance(by: .milliseconds(500))
                    let poll = try await server.request("GET", "/api/v2/imports/\(accepted.jobId)")
                    let snapshot = try JSONDecoder().decode(ImportStatus.self, from: Data(poll.body))
                    finished = snapshot.status == .complete
                    guard snapshot.processedRows > 0 else { continue }
                    // The stream catches up with what polling says, and its last event agrees.
                    try await stream.receive(
                        untilContains: finished ? "event: complete" : "\"processedRows\":\(snapshot.processedRows),")
                    let last = try #require(events(stream.streamedBody).last)
                    let data = try JSONSerialization.jsonObject(with: Data(last.data.utf8)) as? [String: Any]
                    #expect(
                        data?[finished ? "successfulRows" : "processedRows"] as? Int
                            == (finished ? snapshot.successfulRows : snapshot.processedRows))
                }
                let response = try await stream.readResponse()
                #expect(response.status == 200)
                return events(response.body)
            }
            runs.append(transcript)
        }
        #expect(runs[0] == runs[1])
        let types = runs[0].map(\.effectiveType)
        #expect(types.first == "started")
        #expect(types.last == "complete")
        #expect(types.dropFirst().dropLast().allSatisfy { $0 == "progress" })
        #expect(runs[0].map(\.id) == (1...runs[0].count).map { "\($0)" })
        let complete = try JSONSerialization.jsonObject(with: Data(runs[0].last!.data.utf8)) as? [String: Any]
        #expect(complete?["totalRows"] as? Int == 150)
        #expect(complete?["failedRows"] as? Int == 15)
        #expect(complete?["successfulRows"] as? Int == 135)
        let progress = try JSONSerialization.jsonObject(with: Data(runs[0][1].data.utf8)) as? [String: Any]
        #expect(progress?["processedCount"] as? Int == progress?["processedRows"] as? Int)
        #expect(progress?["totalCount"] as? Int == 150)
    }

    @Test(arguments: Transport.available)
    func streamStartsWithTheCommentAndRetry(over transport: Transport) async throws {
        try await withApp(over: transport, Self.manual()) { server in
            let accepted = try JSONDecoder().decode(
                Accepted.self, from: Data(try await upload(server, booksCSV(rows: 3)).body))
            let stream = try await server.openStream("\(accepted.sseUrl)")
            try await stream.receive(untilContains: "retry: 5000\n\n")
            #expect(
                String(decoding: stream.streamedBody, as: UTF8.self).hasPrefix(
                    ": connection established\n\nretry: 5000\n\n"))
        }
    }

    @Test(arguments: Transport.available)
    func reconnectAfterCompleteGets204AndAfterAnEarlierIDTheRest(over transport: Transport) async throws {
        try await withApp(over: transport, Self.manual()) { server in
            let accepted = try JSONDecoder().decode(
                Accepted.self, from: Data(try await upload(server, booksCSV(rows: 20)).body))
            try await server.admin.imports.complete(accepted.jobId)
            let all = try await server.get(accepted.sseUrl)
            let ids = events(all.body).compactMap(\.id)
            let last = try #require(ids.last)
            #expect(
                try await server.get(accepted.sseUrl, headers: "Last-Event-ID: \(last)\r\n").status == 204)
            let rest = try await server.get("\(accepted.sseUrl)?lastEventId=1")
            #expect(events(rest.body).map(\.id) == Array(ids.dropFirst()))
        }
    }

    @Test func v1RoutesShareTheJobs() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let response = try await upload(server, booksCSV(rows: 5), path: "/api/import/csv-gemini")
            #expect(response.status == 202)
            let accepted = try JSONDecoder().decode(Accepted.self, from: Data(response.body))
            let status = try await server.request("GET", "/v1/jobs/\(accepted.jobId)/status")
            #expect(try JSONDecoder().decode(ImportStatus.self, from: Data(status.body)).totalRows == 5)
            // The id also works without its prefix.
            let bare = accepted.jobId.dropFirst("import_".count)
            #expect(try await server.request("GET", "/api/v2/imports/\(bare)").status == 200)
        }
    }

    @Test func adminFailPauseResume() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let accepted = try JSONDecoder().decode(
                Accepted.self, from: Data(try await upload(server, booksCSV(rows: 100)).body))
            let base = "/__admin/imports/\(accepted.jobId)"
            try await server.admin.clock.advance(by: .milliseconds(300))
            #expect(try await server.request("POST", "\(base)/pause").status == 200)
            let before = try await server.request("GET", "/api/v2/imports/\(accepted.jobId)").text
            try await server.admin.clock.advance(by: .seconds(5))
            #expect(try await server.request("GET", "/api/v2/imports/\(accepted.jobId)").text == before)
            #expect(try await server.request("POST", "\(base)/pause").status == 409)
            #expect(try await server.request("POST", "\(base)/resume").status == 200)
            let failed = try await server.request(
                "POST", "\(base)/fail", body: #"{"code":"DISK_FULL","message":"No space"}"#)
            #expect(failed.text.contains(#""status":"error""#))
            let stream = try await server.get(accepted.sseUrl)
            let last = try #require(events(stream.body).last)
            #expect(last.type == "error")
            #expect(last.data == #"{"code":"DISK_FULL","jobId":"\#(accepted.jobId)","message":"No space"}"#)
            #expect(try await server.request("POST", "\(base)/complete").status == 409)
        }
    }

    @Test(
        "refuses bad uploads",
        arguments: [
            ("text/csv", "title\r\nx\r\n", 400, "NOT_MULTIPART"),
            (
                "multipart/form-data; boundary=abc", "--abc\r\nContent-Disposition form-data\r\n\r\nx\r\n--abc--\r\n",
                400, "MALFORMED_MULTIPART"
            ),
            ("multipart/form-data; boundary=abc", "no delimiter at all", 400, "MALFORMED_MULTIPART"),
        ])
    func refusesBadUploads(contentType: String, body: String, status: Int, code: String) async throws {
        try await withInMemoryApp(Self.manual()) { server in
            let response = try await server.request(
                "POST", "/api/v2/imports", headers: ["Content-Type": contentType], body: body)
            #expect(response.status == status)
            #expect(response.text.contains(code))
        }
    }

    @Test func refusesMissingEmptyAndNonCSVFiles() async throws {
        var configuration = Self.manual()
        configuration.imports.maxFileBytes = 1000
        try await withInMemoryApp(configuration) { server in
            func send(_ csv: String, name: String = "file") async throws -> RawResponse {
                let (contentType, body) = multipartUpload(csv, name: name)
                return try await server.request(
                    "POST", "/api/v2/imports", headers: ["Content-Type": contentType], body: body)
            }
            let missing = try await send("a,b\r\n1,2", name: "document")
            #expect(missing.status == 400)
            #expect(missing.text.contains("MISSING_FILE"))
            #expect(try await send("").text.contains("EMPTY_FILE"))
            #expect(try await send("\u{0}\u{1}binary").text.contains("NOT_CSV"))
            #expect(try await send("title\r\n\"unterminated").text.contains("NOT_CSV"))
            #expect(try await send("title,author\r\n").text.contains("NO_ROWS"))
            let large = try await send(booksCSV(rows: 100))
            #expect(large.status == 413)
            #expect(large.text.contains("PAYLOAD_TOO_LARGE"))
        }
    }

    @Test func unknownJobIs404Everywhere() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            for (method, path) in [
                ("GET", "/api/v2/imports/import_nope"), ("GET", "/api/v2/imports/import_nope/stream"),
                ("GET", "/v1/jobs/import_nope/status"), ("POST", "/__admin/imports/import_nope/fail"),
                ("POST", "/__admin/imports/import_nope/pause"), ("POST", "/__admin/imports/import_nope/resume"),
                ("POST", "/__admin/imports/import_nope/complete"),
            ] {
                let response = try await server.request(method, path)
                #expect(response.status == 404, "\(method) \(path)")
                #expect(response.text.contains("JOB_NOT_FOUND"))
            }
        }
    }

    @Test func seededIdsRepeat() async throws {
        let first = try await withInMemoryApp(Self.manual()) { server in
            try JSONDecoder().decode(Accepted.self, from: Data(try await upload(server, booksCSV(rows: 1)).body)).jobId
        }
        let second = try await withInMemoryApp(Self.manual()) { server in
            try JSONDecoder().decode(Accepted.self, from: Data(try await upload(server, booksCSV(rows: 1)).body)).jobId
        }
        #expect(first == second)
    }

    @Test func adminListsEveryJobOldestFirstWithItsStream() async throws {
        try await withInMemoryApp(Self.manual()) { server in
            #expect(try await server.request("GET", "/__admin/imports").text == "[]")
            let first = try JSONDecoder().decode(
                Accepted.self, from: Data(try await upload(server, booksCSV(rows: 10)).body))
            let second = try JSONDecoder().decode(
                Accepted.self, from: Data(try await upload(server, booksCSV(rows: 20, badEvery: 2)).body))
            try await server.admin.imports.complete(second.jobId)
            let listed = try await server.request("GET", "/__admin/imports")
            #expect(listed.status == 200)
            let jobs = try #require(try JSONSerialization.jsonObject(with: Data(listed.body)) as? [[String: Any]])
            #expect(jobs.map { $0["jobId"] as? String } == [first.jobId, second.jobId])
            #expect(jobs.map { $0["stream"] as? String } == ["imports/\(first.jobId)", "imports/\(second.jobId)"])
            #expect(jobs.map { $0["status"] as? String } == ["queued", "complete"])
            #expect(jobs[1]["failedRows"] as? Int == 10)
            #expect(jobs[1]["totalRows"] as? Int == 20)
            #expect((jobs[0]["createdAt"] as? String)?.hasSuffix("Z") == true)
        }
    }
}
