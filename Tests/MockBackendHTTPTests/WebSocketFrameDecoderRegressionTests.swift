import Foundation
import MockBackendHTTP
import MockBackendTesting
import TestSupport
import Testing

/// Inputs the frame decoder's fuzzer found (fuzz/websocket/regressions/) and its seeds,
/// replayed with the fuzzer's limit: each must give the same events however it is split.
@Suite("WebSocketFrameDecoder fuzz regressions")
struct WebSocketFrameDecoderRegressionTests {
    /// `fuzzMaxMessageBytes` of fuzz/FrameDecoderFuzzer.swift.
    static let maxMessageBytes = 300

    static let inputs: [String] = ["fuzz/websocket/regressions", "fuzz/websocket/seeds"].flatMap { folder -> [String] in
        let directory = PackageRoot.path + "/" + folder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !$0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
    }

    @Test("splitting never changes the events", arguments: inputs)
    func splitInvariance(_ path: String) throws {
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/" + path)))
        let whole = decoderEvents(input, maxMessageBytes: Self.maxMessageBytes)
        #expect(!whole.isEmpty)
        #expect(
            decoderEvents(input, cuts: Array(0..<input.count), maxMessageBytes: Self.maxMessageBytes) == whole,
            "byte by byte")
        for index in 0...input.count {
            #expect(
                decoderEvents(input, cuts: [index], maxMessageBytes: Self.maxMessageBytes) == whole, "split at \(index)"
            )
        }
    }

    /// The seeds reach every outcome: frames of every opcode, each failure code, a close.
    @Test func theSeedsReachEveryOutcome() throws {
        var opcodes: Set<UInt8> = []
        var codes: Set<UInt16> = []
        for path in Self.inputs where path.hasPrefix("fuzz/websocket/seeds/") {
            let input = Array(try Data(contentsOf: URL(fileURLWithPath: PackageRoot.path + "/" + path)))
            for event in decoderEvents(input, maxMessageBytes: Self.maxMessageBytes) {
                switch event {
                case .frame(let frame): opcodes.insert(frame.opcode.rawValue)
                case .failure(let error): codes.insert(error.closeCode.rawValue)
                }
            }
        }
        #expect(opcodes == [0, 1, 2, 8, 9, 10])
        #expect(codes == [1002, 1007, 1009])
    }
}
