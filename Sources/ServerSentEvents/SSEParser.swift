/// What a parser found in a chunk of bytes.
public enum SSEParserOutput: Sendable, Equatable {
    /// A dispatched event; its `id` is the last event ID in force at dispatch.
    case event(ServerSentEvent)
    /// A `retry:` field: the new reconnection time in milliseconds.
    case retry(Int)
    /// A comment line, without the colon and one leading space.
    case comment(String)
    /// A line or an event went past the parser's `SSEParserLimits`; what it held is
    /// dropped, and parsing goes on from the next line (or the next event).
    case limitExceeded(SSEParserError)
}

/// An event-stream parser that follows WHATWG HTML §9.2.6 ("Interpreting an event
/// stream") exactly, fed any chunking of the bytes.
///
/// It works on bytes: lines are cut at CR and LF bytes (which never occur inside a UTF-8
/// sequence), so a character split across chunks is decoded whole. The rules are quoted
/// beside the code that implements them. Memory is bounded by `limits`: a longer line or
/// a larger event is reported as `.limitExceeded` and dropped, never buffered whole.
public struct SSEParser: Sendable {
    /// The bounds on one line and one event.
    public let limits: SSEParserLimits
    private var line: [UInt8] = []
    /// The current line went past `limits.maxLineBytes`: its bytes are skipped up to its end.
    private var discardingLine = false
    /// The current event lost a line or went past `limits.maxEventBytes`: its fields are
    /// ignored up to the blank line, which then dispatches nothing.
    private var discardingEvent = false
    private var dataBytes = 0
    /// The previous chunk ended in CR; an LF starting this chunk belongs to it.
    private var pendingCR = false
    /// Bytes at the very start, held until they can be told apart from a BOM.
    private var startBytes: [UInt8]? = []
    private var dataBuffer = ""
    private var hasData = false
    private var eventTypeBuffer = ""
    private var lastEventIDBuffer = ""

    /// The last event ID string: what a client sends as `Last-Event-ID` on reconnect.
    public private(set) var lastEventID = ""

    /// A parser whose last event ID starts as `lastEventID`: the one a client resumes with.
    public init(lastEventID: String = "", limits: SSEParserLimits = SSEParserLimits()) {
        self.limits = limits
        self.lastEventID = lastEventID
        lastEventIDBuffer = lastEventID
    }

    /// Parses the next bytes; returns everything they complete.
    public mutating func feed<C: Collection>(_ bytes: C) -> [SSEParserOutput] where C.Element == UInt8 {
        var output: [SSEParserOutput] = []
        if var start = startBytes {
            // "The UTF-8 decode algorithm strips one leading UTF-8 Byte Order Mark (BOM), if any."
            start.append(contentsOf: bytes)
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            if start.count < 3, bom.starts(with: start) {
                startBytes = start
                return output
            }
            startBytes = nil
            let rest = start.starts(with: bom) ? Array(start.dropFirst(3)) : start
            scan(rest, into: &output)
            return output
        }
        scan(bytes, into: &output)
        return output
    }

    /// The stream ended. "Once the end of the file is reached, any pending data must be
    /// discarded. (If the file ends in the middle of an event, before the final empty
    /// line, the incomplete event is not dispatched.)"
    ///
    /// The last event ID buffer goes back to the last event ID string: an `id:` of the
    /// incomplete event was never dispatched ("set the last event ID string ... to the
    /// value of the last event ID buffer" happens only on dispatch), so it must not be
    /// sent as `Last-Event-ID` nor carried onto the next connection's events.
    public mutating func reset() {
        line = []
        pendingCR = false
        startBytes = []
        discardingLine = false
        discardEvent()
    }

    private mutating func scan<C: Collection>(_ bytes: C, into output: inout [SSEParserOutput])
    where C.Element == UInt8 {
        // "Lines must be separated by either a U+000D CARRIAGE RETURN U+000A LINE FEED
        // (CRLF) character pair, a single U+000A LINE FEED (LF) character, or a single
        // U+000D CARRIAGE RETURN (CR) character."
        for byte in bytes {
            if pendingCR {
                pendingCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0D:
                pendingCR = true
                processLine(into: &output)
            case 0x0A:
                processLine(into: &output)
            default:
                guard !discardingLine else { continue }
                line.append(byte)
                if line.count > limits.maxLineBytes {
                    output.append(.limitExceeded(.lineTooLong(limit: limits.maxLineBytes)))
                    line = []
                    discardingLine = true
                    discardingEvent = true
                }
            }
        }
    }

    private mutating func processLine(into output: inout [SSEParserOutput]) {
        defer { line.removeAll(keepingCapacity: true) }
        if discardingLine {
            // The end of a line that went past the limit: nothing of it is kept.
            discardingLine = false
            return
        }
        // "If the line is empty (a blank line): Dispatch the event."
        guard let first = line.first else {
            if discardingEvent {
                discardEvent()
            } else {
                dispatch(into: &output)
            }
            return
        }
        guard !discardingEvent else { return }
        // "If the line starts with a U+003A COLON character (:): Ignore the line."
        if first == UInt8(ascii: ":") {
            output.append(.comment(Self.decode(Self.droppingOneSpace(line.dropFirst()))))
            return
        }
        // "If the line contains a U+003A COLON character: Collect the characters on the
        // line before the first U+003A COLON character, and let field be that string.
        // Collect the characters on the line after the first U+003A COLON character, and
        // let value be that string. If value starts with a U+0020 SPACE character, remove
        // it from value." "Otherwise, the string is not empty but does not contain a
        // U+003A COLON character: process the field using the whole line as the field
        // name, and the empty string as the field value."
        let field: ArraySlice<UInt8>
        let value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = Self.droppingOneSpace(line[(colon + 1)...])
        } else {
            field = line[...]
            value = []
        }
        process(field: field, value: value, into: &output)
    }

    private mutating func process(
        field: ArraySlice<UInt8>, value: ArraySlice<UInt8>, into output: inout [SSEParserOutput]
    ) {
        switch Self.decode(field) {
        case "event":
            // "Set the event type buffer to field value."
            eventTypeBuffer = Self.decode(value)
        case "data":
            // "Append the field value to the data buffer, then append a single U+000A
            // LINE FEED (LF) character to the data buffer."
            dataBytes += value.count + 1
            guard dataBytes <= limits.maxEventBytes else {
                output.append(.limitExceeded(.eventTooLarge(limit: limits.maxEventBytes)))
                dataBuffer = ""
                discardingEvent = true
                return
            }
            dataBuffer += Self.decode(value)
            dataBuffer += "\n"
            hasData = true
        case "id":
            // "If the field value does not contain U+0000 NULL, then set the last event
            // ID buffer to the field value. Otherwise, ignore the field."
            if !value.contains(0) { lastEventIDBuffer = Self.decode(value) }
        case "retry":
            // "If the field value consists of only ASCII digits, then interpret the field
            // value as an integer in base ten, and set the event stream's reconnection
            // time to that integer. Otherwise, ignore the field." More digits than an Int
            // holds saturate at Int.max; what a client makes of that is its policy's concern.
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                output.append(.retry(value.count > 15 ? Int.max : Int(Self.decode(value)) ?? Int.max))
            }
        default:
            // "Otherwise: The field is ignored."
            break
        }
    }

    private mutating func dispatch(into output: inout [SSEParserOutput]) {
        // "1. Set the last event ID string of the event source to the value of the last
        // event ID buffer. The buffer does not get reset, so the last event ID string of
        // the event source remains set to this value until the next time it is set by
        // the server."
        lastEventID = lastEventIDBuffer
        // "2. If the data buffer is an empty string, set the data buffer and the event
        // type buffer to the empty string and return."
        guard hasData else {
            eventTypeBuffer = ""
            dataBytes = 0
            return
        }
        // "3. If the data buffer's last character is a U+000A LINE FEED (LF) character,
        // then remove the last character from the data buffer."
        if dataBuffer.hasSuffix("\n") { dataBuffer.removeLast() }
        // "4-6. ... Initialize the event's type attribute to "message", its data attribute
        // to data, ... and the lastEventId attribute to the last event ID string. If the
        // event type buffer has a value other than the empty string, change the type of
        // the newly created event to equal the value of the event type buffer."
        let event = ServerSentEvent(
            type: eventTypeBuffer.isEmpty ? nil : eventTypeBuffer, data: dataBuffer,
            id: lastEventID.isEmpty ? nil : lastEventID)
        // "7. Set the data buffer and the event type buffer to the empty string."
        dataBuffer = ""
        dataBytes = 0
        hasData = false
        eventTypeBuffer = ""
        output.append(.event(event))
    }

    /// Drops the event being read, undispatched: its buffers are emptied and the last event
    /// ID buffer goes back to the last dispatched id.
    private mutating func discardEvent() {
        dataBuffer = ""
        dataBytes = 0
        hasData = false
        eventTypeBuffer = ""
        lastEventIDBuffer = lastEventID
        discardingEvent = false
    }

    private static func droppingOneSpace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes.first == UInt8(ascii: " ") ? bytes.dropFirst() : bytes
    }

    /// "UTF-8 decode": invalid sequences become U+FFFD.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
