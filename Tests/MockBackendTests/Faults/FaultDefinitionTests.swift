import Foundation
import TestSupport
import Testing

@testable import MockBackend

/// Fault definitions are decoded into `Fault` and checked at the edge.
@Suite("Fault definitions")
struct FaultDefinitionTests {
    private func decode(_ json: String) throws -> Fault {
        try JSONDecoder().decode(Fault.self, from: Data(json.utf8))
    }

    private func refusal(_ json: String) -> FaultDefinitionError? {
        do {
            _ = try decode(json)
            return nil
        } catch let error as FaultDefinitionError {
            return error
        } catch {
            return FaultDefinitionError(field: "?", reason: "\(error)")
        }
    }

    @Test func decodesEveryKind() throws {
        #expect(try decode(#"{"kind":"status"}"#) == .status(503, body: nil, retryAfter: nil))
        #expect(try decode(#"{"kind":"stall","afterEvents":2}"#) == .stall(afterEvents: 2, milliseconds: nil))
        #expect(try decode(#"{"kind":"blackhole"}"#) == .blackhole(afterEvents: 0))
        #expect(try decode(#"{"kind":"fragment"}"#) == .fragment(.bytes(1), pauseMilliseconds: 20))
        #expect(
            try decode(#"{"kind":"fragment","split":"utf8","delayMs":5}"#) == .fragment(.utf8, pauseMilliseconds: 5))
        #expect(try decode(#"{"kind":"buffer","kb":2}"#) == .buffer(bytes: 2048))
        #expect(try decode(#"{"kind":"malformed"}"#) == .malformed(.malformedResponseChunk))
        #expect(try decode(#"{"kind":"refuse_stream","hang":true}"#) == .refuseStream(status: nil, hang: true))
        #expect(try decode(#"{"kind":"delay","ms":5}"#) == .delay(milliseconds: 5))
        // The HTTP/2 kinds: RST_STREAM CANCEL and GOAWAY NO_ERROR by default.
        #expect(try decode(#"{"kind":"rst_stream"}"#) == .rstStream(code: 8, afterEvents: 0))
        #expect(
            try decode(#"{"kind":"goaway","afterEvents":1}"#) == .goAway(code: 0, afterEvents: 1, lastStreamID: nil))
        #expect(try decode(#"{"kind":"max_concurrent_streams","n":6}"#) == .maxConcurrentStreams(6))
        #expect(try decode(#"{"kind":"window_stall","afterBytes":64}"#) == .windowStall(afterBytes: 64))
        #expect(try decode(#"{"kind":"content_length_on_stream"}"#) == .contentLengthOnStream)
        // A null field is an absent one.
        #expect(try decode(#"{"kind":"stall","ms":null}"#) == .stall(afterEvents: 0, milliseconds: nil))
        for kind in Fault.kinds {
            #expect(Fault.fields[kind] != nil, "\(kind) has its fields")
        }
    }

    @Test(
        "refuses, naming the field",
        arguments: [
            (#"{"kind":"explode"}"#, "kind"), (#"{}"#, "kind"), (#"{"kind":"delay"}"#, "ms"),
            (#"{"kind":"delay","ms":-1}"#, "ms"), (#"{"kind":"delay","ms":100,"reset":true}"#, "reset"),
            (#"{"kind":"stall","afterEvent":2}"#, "afterEvent"), (#"{"kind":"reset","status":500}"#, "status"),
            (#"{"kind":"status","status":99}"#, "status"), (#"{"kind":"fragment","split":"words"}"#, "split"),
            (#"{"kind":"fragment","split":"crlf","bytes":3}"#, "bytes"), (#"{"kind":"fragment","bytes":0}"#, "bytes"),
            (#"{"kind":"buffer"}"#, "kb"), (#"{"kind":"buffer","kb":99999999}"#, "kb"),
            (#"{"kind":"cut_inside_event","bytes":3}"#, "events"),
            (#"{"kind":"cut_inside_event","events":0,"bytes":3}"#, "events"),
            (#"{"kind":"malformed","variant":"SOMETHING"}"#, "variant"),
            (#"{"kind":"latency","ms":999999999999}"#, "ms"),
            (#"{"kind":"rst_stream","code":-1}"#, "code"), (#"{"kind":"rst_stream","code":4294967296}"#, "code"),
            (#"{"kind":"rst_stream","afterEvents":-1}"#, "afterEvents"),
            (#"{"kind":"goaway","lastStreamId":2147483648}"#, "lastStreamId"),
            (#"{"kind":"goaway","lastStreamId":1,"hang":true}"#, "hang"),
            (#"{"kind":"max_concurrent_streams"}"#, "n"), (#"{"kind":"max_concurrent_streams","n":1048577}"#, "n"),
            (#"{"kind":"window_stall"}"#, "afterBytes"), (#"{"kind":"window_stall","afterBytes":-1}"#, "afterBytes"),
            (#"{"kind":"content_length_on_stream","events":1}"#, "events"),
        ])
    func refusesNamingTheField(_ json: String, field: String) {
        let error = refusal(json)
        #expect(error?.field == field, "\(json) → \(String(describing: error))")
    }

    @Test func encodesWhatItDecodedWithTheDefaultsItApplied() throws {
        for json in [
            #"{"kind":"status","retryAfter":2,"status":503}"#, #"{"kind":"stall","afterEvents":2,"ms":500}"#,
            #"{"afterEvents":3,"kind":"blackhole"}"#, #"{"bytes":1,"delayMs":20,"kind":"fragment"}"#,
            #"{"delayMs":20,"kind":"fragment","split":"crlf"}"#,
            #"{"events":2,"kind":"drop_after_events","reset":false}"#,
            #"{"kind":"buffer","kb":4}"#, #"{"hang":false,"kind":"refuse_stream","status":503}"#,
            #"{"afterEvents":0,"code":8,"kind":"rst_stream"}"#,
            #"{"afterEvents":1,"code":11,"kind":"goaway","lastStreamId":1}"#,
            #"{"kind":"max_concurrent_streams","n":2}"#,
            #"{"afterBytes":64,"kind":"window_stall"}"#, #"{"kind":"content_length_on_stream"}"#,
        ] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let encoded = String(decoding: try encoder.encode(try decode(json)), as: UTF8.self)
            let sorted = String(
                decoding: try JSONSerialization.data(
                    withJSONObject: try JSONSerialization.jsonObject(with: Data(json.utf8)), options: .sortedKeys),
                as: UTF8.self)
            #expect(encoded == sorted)
        }
    }
}
