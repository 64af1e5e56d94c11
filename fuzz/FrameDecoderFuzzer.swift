// libFuzzer target for WebSocketFrameDecoder (Sources/MockBackendHTTP/WebSocket/).
//
// Built by fuzz/run.sh together with the decoder's sources into one module. Every input
// is the byte stream a client sends after the upgrade; it is fed to a fresh decoder in
// several ways, and the events must be identical whatever the split (the decoder's
// documented contract). Every frame and every message joined from them must respect the
// rules the decoder enforces (RFC 6455 §5), checked here independently of it. Any
// violation prints what differs and aborts, which libFuzzer records as a crash.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small limit, so that inputs of a few hundred bytes reach it.
let fuzzMaxMessageBytes = 300

/// Inputs shorter than this are also fed one byte at a time.
let byteAtATimeLimit = 2048

// MARK: - Reporting

func hex(_ bytes: some Collection<UInt8>, max: Int = 400) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for (index, byte) in bytes.enumerated() {
        if index == max {
            out += Array("...(\(bytes.count - max) more bytes)".utf8)
            break
        }
        out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
        if index % 32 == 31 { out.append(UInt8(ascii: "\n")) } else { out.append(UInt8(ascii: " ")) }
    }
    return String(decoding: out, as: UTF8.self)
}

func describe(_ events: [WebSocketFrameDecoder.Event]) -> String {
    events.isEmpty
        ? "  (no events)"
        : events.enumerated().map { index, event in
            switch event {
            case .frame(let frame): "  [\(index)] \(frame)"
            case .failure(let error): "  [\(index)] failure(\(error))"
            }
        }.joined(separator: "\n")
}

/// Signatures of split-dependence findings to tolerate, from `FUZZ_IGNORE` (comma-separated
/// substrings, e.g. `text->1007`). For exploring past a known finding only; CI never sets it.
let ignoredSignatures: [String] = {
    guard let raw = getenv("FUZZ_IGNORE") else { return [] }
    return String(cString: raw).split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
}()

func fail(_ message: String, input: [UInt8], signature: String? = nil) -> Never {
    let signatureLine = signature.map { "signature: \($0)\n" } ?? ""
    let text = """

        ==== WebSocketFrameDecoder invariant violated ====
        \(signatureLine)\(message)
        input (\(input.count) bytes):
        \(hex(input))
        ==================================================

        """
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let result = bytes.withUnsafeBytes { write(2, $0.baseAddress! + written, $0.count - written) }
        if result <= 0 { break }
        written += result
    }
    abort()
}

// MARK: - One way of feeding

struct Outcome: Equatable {
    var events: [WebSocketFrameDecoder.Event] = []
    var isFinished = false
}

/// Feeds `input` cut at `cuts` to a fresh decoder and checks the per-feed invariants:
/// a failure or a close frame is the last event of its feed and of all feeds, and a
/// finished decoder ignores further bytes.
func feed(_ input: [UInt8], cuts: [Int], way: String) -> Outcome {
    var decoder = WebSocketFrameDecoder(maxMessageBytes: fuzzMaxMessageBytes)
    var outcome = Outcome()
    var start = 0
    for cut in cuts + [input.count] where cut >= start && cut <= input.count {
        let wasFinished = decoder.isFinished
        let events = decoder.feed(input[start..<cut])
        if wasFinished, !events.isEmpty {
            fail("\(way): events after the end (bytes \(start)..<\(cut)):\n\(describe(events))", input: input)
        }
        outcome.events += events
        start = cut
    }
    if let index = outcome.events.firstIndex(where: ends), index != outcome.events.count - 1 {
        fail("\(way): events follow a failure or a close frame:\n\(describe(outcome.events))", input: input)
    }
    if decoder.isFinished != (outcome.events.last.map(ends) ?? false) {
        fail("\(way): isFinished is \(decoder.isFinished) after:\n\(describe(outcome.events))", input: input)
    }
    if decoder.isFinished, !decoder.feed([0x81, 0x80, 0, 0, 0, 0]).isEmpty {
        fail("\(way): a finished decoder produced events for a valid frame", input: input)
    }
    outcome.isFinished = decoder.isFinished
    return outcome
}

/// Whether `event` ends the input: a failure or a close frame.
func ends(_ event: WebSocketFrameDecoder.Event) -> Bool {
    switch event {
    case .failure: true
    case .frame(let frame): frame.opcode == .close
    }
}

// MARK: - The rules, checked independently of the decoder

func checkEvents(_ events: [WebSocketFrameDecoder.Event], input: [UInt8]) {
    var messageOpcode: WebSocketOpcode?
    var message: [UInt8] = []
    var assembler = WebSocketMessageAssembler()
    for (index, event) in events.enumerated() {
        func violated(_ what: String) -> Never {
            fail("event [\(index)] \(what):\n\(describe(events))", input: input)
        }
        guard case .frame(let frame) = event else {
            guard case .failure(let error) = event else { continue }
            if ![1002, 1007, 1009].contains(error.closeCode.rawValue) {
                violated("fails with close code \(error.closeCode)")
            }
            continue
        }
        switch frame.opcode {
        case .ping, .pong, .close:
            if !frame.fin { violated("is a fragmented control frame") }
            if frame.payload.count > 125 { violated("is a control frame of more than 125 bytes") }
            if frame.opcode == .close {
                if frame.payload.count == 1 { violated("is a close frame of one byte") }
                if frame.payload.count >= 2 {
                    let code = WebSocketCloseCode(UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]))
                    if !code.isSendable { violated("is a close frame with code \(code)") }
                    if String(validating: frame.payload[2...], as: UTF8.self) == nil {
                        violated("is a close frame whose reason is not UTF-8")
                    }
                }
            }
        case .text, .binary:
            if messageOpcode != nil { violated("starts a message inside another") }
            messageOpcode = frame.opcode
            message = frame.payload
        case .continuation:
            if messageOpcode == nil { violated("continues no message") }
            message += frame.payload
        }
        let joined = assembler.append(frame)
        guard !frame.opcode.isControl else { continue }
        if message.count > fuzzMaxMessageBytes {
            violated("brings a message to \(message.count) bytes, over the limit")
        }
        guard frame.fin else {
            if joined != nil { violated("gives a message before its last fragment") }
            continue
        }
        switch (messageOpcode, joined) {
        case (.text?, .text(let text)?):
            if String(validating: message, as: UTF8.self) == nil { violated("ends a text message that is not UTF-8") }
            if Array(text.utf8) != message { violated("joins to other text than its fragments") }
        case (.binary?, .binary(let bytes)?):
            if bytes != message { violated("joins to other bytes than its fragments") }
        default:
            violated("ends a message the assembler gives as \(String(describing: joined))")
        }
        messageOpcode = nil
    }
}

/// A short name for signatures: the failure code, "frame", "end".
func kind(_ events: [WebSocketFrameDecoder.Event], _ index: Int) -> String {
    guard index < events.count else { return "end" }
    switch events[index] {
    case .frame(let frame): return "\(frame.opcode)"
    case .failure(let error): return "\(error.closeCode.rawValue)"
    }
}

/// Compares one way of feeding with feeding the input whole; aborts on a difference unless
/// its signature is in FUZZ_IGNORE (then returns false: stop this input).
func compare(_ reference: Outcome, _ other: Outcome, way: String, cuts: [Int], input: [UInt8]) -> Bool {
    guard reference != other else { return true }
    let firstDiff =
        zip(reference.events, other.events).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(reference.events.count, other.events.count)
    let signature = "\(kind(reference.events, firstDiff))->\(kind(other.events, firstDiff))"
    if ignoredSignatures.contains(where: { signature.contains($0) }) { return false }
    let cutText = cuts.count > 40 ? "\(cuts.prefix(40))... (\(cuts.count) cuts)" : "\(cuts)"
    fail(
        """
        events differ between feeding the input whole and \(way) (cuts at \(cutText)); \
        first difference at event [\(firstDiff)]
        whole (finished \(reference.isFinished)):
        \(describe(reference.events))
        \(way) (finished \(other.isFinished)):
        \(describe(other.events))
        """, input: input, signature: signature)
}

// MARK: - Entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []

    // (a) whole at once.
    let whole = feed(input, cuts: [], way: "whole")
    checkEvents(whole.events, input: input)

    // (b) in two at an index taken from the first two bytes.
    if input.count > 1 {
        let cuts = [(Int(input[0]) | Int(input[1]) << 8) % (input.count + 1)]
        let way = "split in two"
        guard compare(whole, feed(input, cuts: cuts, way: way), way: way, cuts: cuts, input: input) else { return 0 }
    }

    // (c) one byte at a time, for short inputs.
    if input.count > 1, input.count < byteAtATimeLimit {
        let cuts = Array(1..<input.count)
        let way = "byte at a time"
        guard compare(whole, feed(input, cuts: cuts, way: way), way: way, cuts: cuts, input: input) else { return 0 }
    }

    // (d) pieces of pseudo-random sizes seeded by the input.
    if input.count > 2 {
        let cuts = randomCuts(input)
        let way = "random pieces"
        guard compare(whole, feed(input, cuts: cuts, way: way), way: way, cuts: cuts, input: input) else { return 0 }
    }
    return 0
}
