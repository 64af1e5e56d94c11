import MockBackendAPI
import MockBackendHTTP
import ServerSentEvents

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns recorded exchanges into mappings this server (and, for plain answers, WireMock)
/// loads: a plain answer becomes a WireMock stub, an event stream an `sse` stub, a
/// WebSocket a `webSocket` stub. Secrets are left out here: `Authorization`, `Cookie` and
/// the session token are never matched on, and `Set-Cookie` values are redacted as the
/// journals show them.
struct RecordedMappings {
    let spec: RecordingSpec
    /// The recording's number, which names its scenarios apart from another's.
    let recording: Int
    let redaction: SecretRedaction

    /// Fields never written into a recorded answer: the connection writes its own framing,
    /// and hop-by-hop fields belong to the recorded connection (RFC 9110 §7.6.1).
    static let droppedResponseFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "date", "server", "via", "sec-websocket-accept", "sec-websocket-extensions",
    ]

    /// One mapping per distinct answer, in the order the requests came; exchanges the
    /// upstream never answered are left out.
    func mappings(of tapes: [RecordedExchange]) -> [JSONValue] {
        var groups: [(request: JSONValue, answers: [JSONValue], name: String)] = []
        var index: [String: Int] = [:]
        for exchange in tapes.sorted(by: { $0.sequence < $1.sequence }) {
            let tape = exchange.snapshot
            guard let status = tape.status else { continue }
            let request = requestPattern(of: exchange)
            let answer = response(status: status, tape: tape)
            let key = Self.canonical(request)
            if let at = index[key] {
                groups[at].answers.append(answer)
            } else {
                index[key] = groups.count
                groups.append((request, [answer], Self.name(exchange)))
            }
        }
        var mappings: [JSONValue] = []
        for group in groups {
            // The same answer again and again is one stub.
            var distinct: [JSONValue] = []
            for answer in group.answers where distinct.last != answer { distinct.append(answer) }
            guard spec.repeatsAsScenarios, distinct.count > 1 else {
                mappings.append(mapping(name: group.name, request: group.request, response: group.answers[0]))
                continue
            }
            // WireMock's shape: the first answer in `Started`, each next one in a state of
            // its own, the last one kept.
            let scenario = "recording-\(recording)-\(group.name)"
            for (position, answer) in distinct.enumerated() {
                var fields = Self.fields(mapping(name: group.name, request: group.request, response: answer))
                fields["scenarioName"] = .string(scenario)
                fields["requiredScenarioState"] = .string(position == 0 ? "Started" : "\(scenario)-\(position + 1)")
                if position + 1 < distinct.count { fields["newScenarioState"] = .string("\(scenario)-\(position + 2)") }
                mappings.append(.object(fields))
            }
        }
        return mappings
    }

    /// Priority 1: a recorded answer is what the team's backend does at that path, so it
    /// answers before a built-in backend that shares the path (`/ws/progress`, `/api/...`)
    /// when the recording is served without `--proxy`.
    private func mapping(name: String, request: JSONValue, response: JSONValue) -> JSONValue {
        let id = SecureToken.uuid()
        return .object([
            "id": .string(id), "uuid": .string(id), "name": .string(name), "priority": .integer(1),
            "request": request, "response": response, "persistent": .bool(true),
        ])
    }

    /// The same text for equal values, whatever the order of their keys.
    private static func canonical(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func fields(_ value: JSONValue) -> [String: JSONValue] {
        if case .object(let fields) = value { return fields }
        return [:]
    }

    /// `get-api-orders-7`: the method and path, as WireMock names recorded files.
    static func name(_ exchange: RecordedExchange) -> String {
        let path = exchange.target.prefix { $0 != "?" }
        let words = path.split { !($0.isLetter || $0.isNumber) }.map { $0.lowercased() }
        return ([exchange.method.lowercased()] + words).joined(separator: "-").prefix(80).description
    }

    // MARK: Requests

    /// Method, URL and the captured headers; secrets never.
    private func requestPattern(of exchange: RecordedExchange) -> JSONValue {
        var fields: [String: JSONValue] = ["method": .string(exchange.method)]
        if case .query(let name) = redaction.token {
            // The token's parameter is left out: the URL's path and every other parameter.
            let request = HTTPRequest(method: exchange.method, target: exchange.target)
            fields["urlPath"] = .string(request.path)
            var parameters: [String: JSONValue] = [:]
            for item in request.queryItems where item.name != name {
                parameters[item.name] = .object(["equalTo": .string(item.value)])
            }
            if !parameters.isEmpty { fields["queryParameters"] = .object(parameters) }
        } else {
            fields["url"] = .string(exchange.target)
        }
        var headers: [String: JSONValue] = [:]
        for (name, caseInsensitive) in spec.capturedHeaders where !isSecret(name) {
            guard let value = exchange.requestHeaders[name] else { continue }
            var condition: [String: JSONValue] = ["equalTo": .string(value)]
            if caseInsensitive { condition["caseInsensitive"] = .bool(true) }
            headers[name] = .object(condition)
        }
        if !headers.isEmpty { fields["headers"] = .object(headers) }
        return .object(fields)
    }

    private func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if ["authorization", "proxy-authorization", "cookie"].contains(lowered) { return true }
        if case .header(let token) = redaction.token { return token.lowercased() == lowered }
        return false
    }

    // MARK: Responses

    private func response(status: Int, tape: RecordedExchange.Tape) -> JSONValue {
        var fields: [String: JSONValue] = ["status": .integer(status)]
        let headers = responseHeaders(tape.headers)
        if !headers.isEmpty { fields["headers"] = .object(headers) }
        switch tape.kind {
        case .plain:
            let body = tape.chunks.flatMap(\.bytes)
            if !body.isEmpty { fields.merge(Self.body(body, headers: tape.headers)) { $1 } }
        case .eventStream:
            fields["sse"] = eventStream(tape)
        case .webSocket:
            // The 101 is the handshake's own; only the subprotocol the upstream chose stays.
            fields["status"] = nil
            fields["headers"] = tape.headers["Sec-WebSocket-Protocol"].map {
                .object(["Sec-WebSocket-Protocol": .string($0)])
            }
            fields["webSocket"] = webSocket(tape)
        }
        return .object(fields)
    }

    private func responseHeaders(_ headers: HTTPHeaders) -> [String: JSONValue] {
        var values: [String: [String]] = [:]
        var order: [String] = []
        for field in redaction.redacting(headers) where !Self.droppedResponseFields.contains(field.name.lowercased()) {
            if values[field.name] == nil { order.append(field.name) }
            values[field.name, default: []].append(field.value)
        }
        var result: [String: JSONValue] = [:]
        for name in order {
            let list = values[name] ?? []
            result[name] = list.count == 1 ? .string(list[0]) : .array(list.map(JSONValue.string))
        }
        return result
    }

    /// `jsonBody` for JSON, `body` for other text, `base64Body` for the rest (and for any
    /// body with a `Content-Encoding`, kept as it came).
    static func body(_ bytes: [UInt8], headers: HTTPHeaders) -> [String: JSONValue] {
        let encoded = headers["Content-Encoding"].map { !$0.isEmpty && $0.lowercased() != "identity" } ?? false
        guard !encoded, let text = String(validating: bytes, as: UTF8.self) else {
            return ["base64Body": .string(Data(bytes).base64EncodedString())]
        }
        let type = headers["Content-Type"]?.lowercased() ?? ""
        if type.contains("json"), let json = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) {
            return ["jsonBody": json]
        }
        return ["body": .string(text)]
    }

    // MARK: Event streams

    private func eventStream(_ tape: RecordedExchange.Tape) -> JSONValue {
        var fields: [String: JSONValue] = ["end": .string(Self.ending(tape)), "resumable": .bool(true)]
        var previous = 0
        if spec.preserveChunking {
            fields["preserveChunking"] = .bool(true)
            fields["chunks"] = .array(
                tape.chunks.map { chunk in
                    let at = Self.milliseconds(chunk.offset)
                    defer { previous = at }
                    var item: [String: JSONValue] = ["delayMs": .integer(max(0, at - previous))]
                    if let text = String(validating: chunk.bytes, as: UTF8.self) {
                        item["text"] = .string(text)
                    } else {
                        item["base64"] = .string(Data(chunk.bytes).base64EncodedString())
                    }
                    return .object(item)
                })
            return .object(fields)
        }
        var splitter = SSEBlockSplitter()
        var events: [JSONValue] = []
        for chunk in tape.chunks {
            let at = Self.milliseconds(chunk.offset)
            for block in splitter.feed(chunk.bytes) {
                guard var item = Self.item(block.bytes) else { continue }
                item["delayMs"] = .integer(max(0, at - previous))
                previous = at
                events.append(.object(item))
            }
        }
        fields["events"] = .array(events)
        return .object(fields)
    }

    private static func ending(_ tape: RecordedExchange.Tape) -> String {
        switch tape.ending {
        case nil: "open"
        case .complete: "clean"
        case .closed: "fin"
        case .reset: "rst"
        }
    }

    /// The fields of one block as a client reads them (WHATWG HTML §9.2.6): comments,
    /// `retry`, `id`, `event`, `data` lines joined; nil for a block with none of them.
    static func item(_ bytes: [UInt8]) -> [String: JSONValue]? {
        var comments: [String] = []
        var data: [String] = []
        var item: [String: JSONValue] = [:]
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        for line in StubEventStream.lines(text) where !line.isEmpty {
            if line.hasPrefix(":") {
                comments.append(String(line.dropFirst()))
                continue
            }
            let name = line.prefix { $0 != ":" }
            var value = line.dropFirst(name.count)
            if value.hasPrefix(":") { value = value.dropFirst() }
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch name {
            case "data": data.append(String(value))
            case "event": item["event"] = .string(String(value))
            case "id" where !value.contains("\0"): item["id"] = .string(String(value))
            case "retry":
                if let number = Int(value), value.allSatisfy(\.isASCII), number >= 0 {
                    item["retry"] = .integer(number)
                }
            default: break
            }
        }
        if !comments.isEmpty { item["comment"] = .string(comments.joined(separator: "\n")) }
        if !data.isEmpty { item["data"] = .string(data.joined(separator: "\n")) }
        if case .string(let type) = item["event"], type.isEmpty { item["event"] = nil }
        return item.isEmpty ? nil : item
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int((duration.seconds * 1000).rounded())
    }

    // MARK: WebSockets

    private func webSocket(_ tape: RecordedExchange.Tape) -> JSONValue {
        var previous = 0
        let messages = tape.messages.map { message -> JSONValue in
            let at = Self.milliseconds(message.offset)
            defer { previous = at }
            var item: [String: JSONValue] = ["delayMs": .integer(max(0, at - previous))]
            if let text = message.text { item["text"] = .string(text) }
            if let binary = message.binary { item["binary"] = .string(Data(binary).base64EncodedString()) }
            return .object(item)
        }
        var fields: [String: JSONValue] = ["messages": .array(messages)]
        if let close = tape.close {
            fields["close"] = .object(["code": .integer(close.code), "reason": .string(close.reason)])
        }
        return .object(fields)
    }
}
