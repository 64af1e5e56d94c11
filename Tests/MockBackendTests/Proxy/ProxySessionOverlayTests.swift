import Foundation
import MockBackend
import MockBackendAPI
import MockBackendHTTP
import MockBackendTesting
import Testing

/// The session overlay on real traffic: one expire call, and a token's requests get the
/// upstream's own refusal without going upstream, its open streams the terminal event and
/// their end, its reconnects the refusal; and no token is ever shown whole.
@Suite("Proxy: session overlay")
struct ProxySessionOverlayTests {
    static let token = "secret-session-token-0123456789"

    /// A stub on the upstream refusing `/refused` the way a real backend would.
    private func addRefusal(to upstream: RunningServer) async throws {
        let stub = try await upstream.request(
            "POST", "/__admin/mappings",
            body:
                #"{"request":{"urlPath":"/refused"},"response":{"status":403,"headers":{"Content-Type":"application/json","X-Reason":"upstream"},"jsonBody":{"error":"SESSION_EXPIRATION","from":"upstream"}}}"#
        )
        #expect(stub.status == 201)
    }

    @Test func oneExpireCallAnswersEndsAndRefusesWithoutAskingUpstream() async throws {
        try await withProxiedUpstream(proxySettings(token: .header("X-SessionId"))) { upstream, proxy in
            try await addRefusal(to: upstream)
            // The upstream's own refusal, seen once, is what an expiry answers with later.
            let refused = try await proxy.request("GET", "/refused", headers: ["X-SessionId": "someone-else-entirely"])
            #expect(refused.status == 403)
            let auth = "X-SessionId: \(Self.token)\r\n"
            let streams = [
                try await proxy.openRelayed(
                    "/sse/channels/a", headers: auth, upstream: upstream, channel: "channels/a"),
                try await proxy.openRelayed(
                    "/sse/channels/b", headers: auth, upstream: upstream, channel: "channels/b"),
            ]
            let listed = try await proxy.request("GET", "/__admin/proxy/sessions")
            #expect(listed.text.contains(#""openStreams":2"#), "\(listed.text)")
            #expect(!listed.text.contains(Self.token))
            let before = upstream.app.requests.entries().count
            let expired = try await proxy.request(
                "POST", "/__admin/proxy/sessions/\(Self.token)/expire",
                body: #"{"event":{"event":"SESSION_EXPIRATION","data":{"reason":"expired","token":"{{token}}"}}}"#)
            #expect(expired.status == 200, "\(expired.text)")
            #expect(expired.text.contains(#""endedStreams":2"#))
            for client in streams {
                try await client.receive(untilContains: "\r\n0\r\n\r\n", timeout: .seconds(5))
                let body = String(decoding: client.streamedBody, as: UTF8.self)
                #expect(
                    body.contains(
                        "event: SESSION_EXPIRATION\ndata: {\"reason\":\"expired\",\"token\":\"\(Self.token)\"}"))
            }
            // On the server's own clock: each stream ended within 100 ms of the expiry.
            let expiredAt = try #require(Self.date(Self.field("expiredAt", in: expired.text)))
            for name in ["proxy/sse/channels/a", "proxy/sse/channels/b"] {
                let record = try #require(proxy.app.streams.journal.snapshots(stream: name).first)
                let endedAt = try #require(record.endedAt.flatMap(Self.date))
                #expect(endedAt.timeIntervalSince(expiredAt) < 0.1, "\(name) ended \(endedAt) after \(expiredAt)")
                #expect(record.endReason == "session_expired")
            }
            // The next REST call: the upstream's own 403, status, fields and body.
            let next = try await proxy.request("GET", "/anything", headers: ["X-SessionId": Self.token])
            #expect(next.status == 403)
            #expect(next.headers["X-Reason"] == "upstream")
            #expect(next.text.contains(#""from":"upstream""#))
            // A reconnect is refused the same way.
            let reconnect = try await proxy.request("GET", "/sse/channels/a", headers: ["X-SessionId": Self.token])
            #expect(reconnect.status == 403)
            // Nothing of that token reached the upstream after the expiry.
            #expect(upstream.app.requests.entries().count == before)
            // Lifted: its requests go upstream again.
            let lifted = try await proxy.request("DELETE", "/__admin/proxy/sessions/t2")
            #expect(lifted.status == 200, "\(lifted.text)")
            #expect(lifted.text.contains(#""state":"active""#))
            let again = try await proxy.request("GET", "/health", headers: ["X-SessionId": Self.token])
            #expect(again.status == 200)
            #expect(upstream.app.requests.entries().count == before + 1)
        }
    }

    static func field(_ name: String, in json: String) -> String {
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (object?["session"] as? [String: Any])?[name] as? String ?? ""
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    @Test func anExpiryWithoutAKeptRefusalAnswers401SessionExpired() async throws {
        try await withProxiedUpstream { upstream, proxy in
            _ = try await proxy.request("GET", "/health", headers: ["Authorization": "Bearer \(Self.token)"])
            let expired = try await proxy.request("POST", "/__admin/proxy/sessions/t1/expire", body: "{}")
            #expect(expired.status == 200, "\(expired.text)")
            let next = try await proxy.request("GET", "/health", headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(next.status == 401)
            #expect(next.text.contains("SESSION_EXPIRED"))
            // A configured answer wins.
            _ = try await proxy.request(
                "POST", "/__admin/proxy/sessions/t1/expire", body: #"{"status":419,"body":{"custom":true}}"#)
            let custom = try await proxy.request("GET", "/health", headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(custom.status == 419)
            #expect(custom.text == #"{"custom":true}"#)
        }
    }

    @Test func badExpiriesAreRefused() async throws {
        try await withProxiedUpstream { _, proxy in
            let unknown = try await proxy.request("POST", "/__admin/proxy/sessions/nobody/expire", body: "{}")
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("PROXY_SESSION_NOT_FOUND"))
            _ = try await proxy.request("GET", "/health", headers: ["Authorization": "Bearer \(Self.token)"])
            for body in [#"{"status":99}"#, #"{"status":"x"}"#, #"{"event":{"event":"a\nb","data":"x"}}"#, "[1"] {
                let bad = try await proxy.request("POST", "/__admin/proxy/sessions/t1/expire", body: body)
                #expect(bad.status == 400, "\(body): \(bad.text)")
                #expect(bad.text.contains(#""code":"INVALID_BODY""#), "\(body): \(bad.text)")
            }
            #expect(try await proxy.request("DELETE", "/__admin/proxy/sessions/t9").status == 404)
        }
    }

    @Test(arguments: [
        ProxyTokenSource.bearer, .header("X-SessionId"), .cookie("sid"), .query("access_token"),
    ])
    func noJournalOrFeedShowsATokenWhole(source: ProxyTokenSource) async throws {
        try await withProxiedUpstream(proxySettings(token: source)) { upstream, proxy in
            var headers = ["Cookie": "other=\(Self.token)x; sid=\(Self.token)"]
            var target = "/sse/channels/secret"
            switch source {
            case .bearer: headers["Authorization"] = "Bearer \(Self.token)"
            case .header(let name): headers[name] = Self.token
            case .cookie: break
            case .query(let name): target += "?\(name)=\(Self.token)"
            }
            let headerLines = headers.map { "\($0.key): \($0.value)\r\n" }.sorted().joined()
            let feed = try proxy.connect()
            try feed.send("GET /__admin/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try await feed.receive(untilContains: "\r\n\r\n")
            let client = try await proxy.openRelayed(
                target, headers: headerLines, upstream: upstream, channel: "channels/secret")
            let rest = target.replacingOccurrences(of: "/sse/channels/secret", with: "/health")
            _ = try await proxy.request("GET", rest, headers: headers)
            client.close()
            #expect(await eventually { proxy.app.streams.existingStream(named: "proxy/sse/channels/secret") == nil })
            for path in ["/__admin/requests", "/__admin/streams/connections", "/__admin/proxy/sessions"] {
                let shown = try await proxy.request("GET", path)
                #expect(shown.status == 200)
                #expect(!shown.text.contains(Self.token), "\(path) shows the token: \(shown.text)")
            }
            try await feed.receive(untilContains: "/health")
            #expect(!String(decoding: feed.buffer, as: UTF8.self).contains(Self.token))
            feed.close()
        }
    }
}
