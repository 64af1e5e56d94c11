/// A fault definition that cannot mean anything, with the field at fault: the admin API
/// answers it 400 `INVALID_FAULT`.
package struct FaultDefinitionError: Error, Equatable {
    /// The field's path, e.g. `fault.ms`.
    package let field: String
    /// Why it was refused, as the end of a sentence: "must not be negative".
    package let reason: String

    package init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
}

extension Fault: Codable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Fields in milliseconds.
    private static let timeFields: Set<String> = ["ms", "delayMs"]
    /// The longest pause a fault may ask for: a day, which also stands for "for good".
    package static let longestPause = 86_400_000

    /// The fields each kind takes besides `kind`.
    package static let fields: [String: Set<String>] = [
        "status": ["status", "body", "retryAfter"],
        "forbidden": ["status"],
        "delay": ["ms"],
        "latency": ["ms"],
        "drop_after_events": ["events", "reset"],
        "drop_after_bytes": ["bytes", "reset"],
        "cut_inside_event": ["events", "bytes", "reset"],
        "fragment": ["bytes", "split", "delayMs"],
        "stall": ["afterEvents", "ms"],
        "mute": ["ms"],
        "blackhole": ["afterEvents"],
        "buffer": ["kb"],
        "reset": [],
        "empty_response": [],
        "malformed": ["variant"],
        "refuse_stream": ["status", "hang"],
        "rst_stream": ["code", "afterEvents"],
        "goaway": ["code", "afterEvents", "lastStreamId"],
        "max_concurrent_streams": ["n"],
        "window_stall": ["afterBytes"],
        "content_length_on_stream": [],
    ]

    /// The largest HTTP/2 error code (RFC 9113 §7: 32 bits; the registry names 0-13).
    package static let largestErrorCode = 0xFFFF_FFFF

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let prefix = decoder.codingPath.map(\.stringValue).joined(separator: ".")
        func refuse(_ field: String, _ reason: String) -> FaultDefinitionError {
            FaultDefinitionError(field: prefix.isEmpty ? field : prefix + "." + field, reason: reason)
        }
        guard let kind = try container.decodeIfPresent(String.self, forKey: Key("kind")) else {
            throw refuse("kind", "is required")
        }
        guard let allowed = Self.fields[kind] else {
            throw refuse("kind", "must be one of \(Self.kinds.joined(separator: ", "))")
        }
        for key in container.allKeys where key.stringValue != "kind" && !allowed.contains(key.stringValue) {
            let takes = allowed.isEmpty ? "no other field" : allowed.sorted().joined(separator: ", ")
            throw refuse(key.stringValue, "is not a field of a \(kind) fault, which takes \(takes)")
        }
        func integer(_ name: String, minimum: Int = 0) throws -> Int? {
            guard let value = try container.decodeIfPresent(Int.self, forKey: Key(name)) else { return nil }
            // Times are bounded by a day, sizes by a GiB: a timer or a buffer past those is a typo.
            let maximum = Self.timeFields.contains(name) ? Self.longestPause : 1 << 30
            guard value >= minimum else {
                throw refuse(name, minimum == 0 ? "must not be negative" : "must be \(minimum) or more")
            }
            guard value <= maximum || name == "retryAfter" else { throw refuse(name, "must be at most \(maximum)") }
            return value
        }
        func required(_ name: String, minimum: Int = 0) throws -> Int {
            guard let value = try integer(name, minimum: minimum) else { throw refuse(name, "is required for \(kind)") }
            return value
        }
        func flag(_ name: String) throws -> Bool {
            try container.decodeIfPresent(Bool.self, forKey: Key(name)) ?? false
        }
        switch kind {
        case "status":
            let status = try integer("status") ?? 503
            guard (200...599).contains(status) else { throw refuse("status", "must be 200-599") }
            let body = try container.decodeIfPresent(JSONValue.self, forKey: Key("body")).flatMap {
                $0 == .null ? nil : $0
            }
            self = .status(status, body: body, retryAfter: try integer("retryAfter"))
        case "forbidden":
            let status = try integer("status") ?? 403
            guard status == 401 || status == 403 else { throw refuse("status", "must be 401 or 403") }
            self = .forbidden(status: status)
        case "delay": self = .delay(milliseconds: try required("ms"))
        case "latency": self = .latency(milliseconds: try required("ms"))
        case "drop_after_events": self = .dropAfterEvents(try required("events"), reset: try flag("reset"))
        case "drop_after_bytes": self = .dropAfterBytes(try required("bytes"), reset: try flag("reset"))
        case "cut_inside_event":
            self = .cutInsideEvent(
                event: try required("events", minimum: 1), afterBytes: try required("bytes"), reset: try flag("reset"))
        case "fragment":
            let pause = try integer("delayMs") ?? Self.defaultFragmentPause
            let size = try integer("bytes", minimum: 1)
            switch try container.decodeIfPresent(String.self, forKey: Key("split")) {
            case nil: self = .fragment(.bytes(size ?? 1), pauseMilliseconds: pause)
            case let split?:
                guard split == "crlf" || split == "utf8" else { throw refuse("split", "must be crlf or utf8") }
                guard size == nil else { throw refuse("bytes", "cannot be combined with split") }
                self = .fragment(split == "crlf" ? .crlf : .utf8, pauseMilliseconds: pause)
            }
        case "stall": self = .stall(afterEvents: try integer("afterEvents") ?? 0, milliseconds: try integer("ms"))
        case "mute": self = .mute(milliseconds: try integer("ms"))
        case "blackhole": self = .blackhole(afterEvents: try integer("afterEvents") ?? 0)
        case "buffer":
            let kilobytes = try required("kb", minimum: 1)
            guard kilobytes <= 1 << 20 else { throw refuse("kb", "must be at most 1048576") }
            self = .buffer(bytes: kilobytes * 1024)
        case "reset": self = .reset
        case "empty_response": self = .emptyResponse
        case "malformed":
            let variant = try container.decodeIfPresent(String.self, forKey: Key("variant"))
            guard let malformation = Malformation(rawValue: variant ?? Malformation.malformedResponseChunk.rawValue)
            else {
                throw refuse("variant", "must be MALFORMED_RESPONSE_CHUNK or RANDOM_DATA_THEN_CLOSE")
            }
            self = .malformed(malformation)
        case "rst_stream", "goaway":
            let code = try container.decodeIfPresent(Int.self, forKey: Key("code")) ?? (kind == "goaway" ? 0 : 8)
            guard (0...Self.largestErrorCode).contains(code) else {
                throw refuse("code", "must be an HTTP/2 error code, 0-\(Self.largestErrorCode)")
            }
            let afterEvents = try integer("afterEvents") ?? 0
            if kind == "rst_stream" {
                self = .rstStream(code: code, afterEvents: afterEvents)
            } else {
                let last = try container.decodeIfPresent(Int.self, forKey: Key("lastStreamId"))
                if let last, !(0...Int(Int32.max)).contains(last) {
                    throw refuse("lastStreamId", "must be a stream id, 0-\(Int32.max)")
                }
                self = .goAway(code: code, afterEvents: afterEvents, lastStreamID: last)
            }
        case "max_concurrent_streams":
            let count = try required("n")
            guard count <= 1 << 20 else { throw refuse("n", "must be at most 1048576") }
            self = .maxConcurrentStreams(count)
        case "window_stall": self = .windowStall(afterBytes: try required("afterBytes"))
        case "content_length_on_stream": self = .contentLengthOnStream
        default:
            let status = try integer("status")
            if let status, !(200...599).contains(status) { throw refuse("status", "must be 200-599") }
            self = .refuseStream(status: status, hang: try flag("hang"))
        }
    }

    /// The same object the admin API takes, with the defaults it applied.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(kind, forKey: Key("kind"))
        func put(_ name: String, _ value: (some Encodable)?) throws {
            if let value { try container.encode(value, forKey: Key(name)) }
        }
        switch self {
        case .status(let status, let body, let retryAfter):
            try put("status", status)
            try put("body", body)
            try put("retryAfter", retryAfter)
        case .forbidden(let status):
            try put("status", status)
        case .reset, .emptyResponse:
            break
        case .delay(let milliseconds), .latency(let milliseconds):
            try put("ms", milliseconds)
        case .dropAfterEvents(let count, let reset):
            try put("events", count)
            try put("reset", reset)
        case .dropAfterBytes(let count, let reset):
            try put("bytes", count)
            try put("reset", reset)
        case .cutInsideEvent(let event, let afterBytes, let reset):
            try put("events", event)
            try put("bytes", afterBytes)
            try put("reset", reset)
        case .fragment(let fragmentation, let pause):
            switch fragmentation {
            case .bytes(let size): try put("bytes", size)
            case .crlf: try put("split", "crlf")
            case .utf8: try put("split", "utf8")
            }
            try put("delayMs", pause)
        case .stall(let afterEvents, let milliseconds):
            try put("afterEvents", afterEvents)
            try put("ms", milliseconds)
        case .mute(let milliseconds):
            try put("ms", milliseconds)
        case .blackhole(let afterEvents):
            try put("afterEvents", afterEvents)
        case .buffer(let bytes):
            try put("kb", bytes / 1024)
        case .malformed(let malformation):
            try put("variant", malformation.rawValue)
        case .refuseStream(let status, let hang):
            try put("status", status)
            try put("hang", hang)
        case .rstStream(let code, let afterEvents):
            try put("code", code)
            try put("afterEvents", afterEvents)
        case .goAway(let code, let afterEvents, let lastStreamID):
            try put("code", code)
            try put("afterEvents", afterEvents)
            try put("lastStreamId", lastStreamID)
        case .maxConcurrentStreams(let count):
            try put("n", count)
        case .windowStall(let afterBytes):
            try put("afterBytes", afterBytes)
        case .contentLengthOnStream:
            break
        }
    }
}
