import ServerSentEvents
import Testing

/// The relay's splitter: whole blocks, byte for byte, however the input is split; events
/// told from comments; ids read as a client reads them.
@Suite("SSE block splitter")
struct SSEBlockSplitterTests {
    static func split(_ text: String, every size: Int? = nil) -> [SSEBlock] {
        var splitter = SSEBlockSplitter()
        let bytes = Array(text.utf8)
        guard let size else { return splitter.feed(bytes) }
        var blocks: [SSEBlock] = []
        var index = 0
        while index < bytes.count {
            blocks += splitter.feed(bytes[index..<min(bytes.count, index + size)])
            index += size
        }
        return blocks
    }

    static let stream =
        ": hello\n\nid: 1\nevent: tick\ndata: a\n\nretry: 500\n\n:keep-alive\nid: 2\ndata: b\ndata: c\n\ndata: no id\n\n"

    @Test func blocksComeWholeAndUnchanged() {
        let blocks = Self.split(Self.stream)
        #expect(blocks.map(\.bytes).joined().elementsEqual(Self.stream.utf8))
        #expect(blocks.map(\.isEvent) == [false, false, true, false, false, true, true])
        #expect(blocks.compactMap(\.id) == ["1", "2"])
        #expect(String(decoding: blocks[2].bytes, as: UTF8.self) == "id: 1\nevent: tick\ndata: a\n\n")
    }

    @Test func everySplitGivesTheSameBlocksJoined() {
        let whole = Self.split(Self.stream)
        for size in 1...9 {
            let pieces = Self.split(Self.stream, every: size)
            #expect(pieces.filter(\.isEvent) == whole.filter(\.isEvent), "split \(size)")
            #expect(pieces.map(\.bytes).joined().elementsEqual(Self.stream.utf8))
        }
    }

    @Test func crAndCRLFEndLinesToo() {
        for text in ["id: 7\r\ndata: x\r\n\r\n", "id: 7\rdata: x\r\r", "id: 7\ndata: x\r\n\n"] {
            var splitter = SSEBlockSplitter()
            let blocks = splitter.feed(Array(text.utf8))
            #expect(blocks.filter(\.isEvent).map(\.id) == ["7"], "\(text.debugDescription)")
            // The LF of a final CRLF is held (it may belong to the CR): handed on at the end.
            #expect((blocks.map(\.bytes).joined() + splitter.takeRemainder()).elementsEqual(text.utf8))
        }
    }

    @Test func anUnfinishedEventIsHeldUntilItsBlankLine() {
        var splitter = SSEBlockSplitter()
        #expect(splitter.feed(Array("data: half".utf8)).isEmpty)
        #expect(splitter.feed(Array("\n".utf8)).isEmpty)
        let blocks = splitter.feed(Array("\n".utf8))
        #expect(blocks == [SSEBlock(bytes: Array("data: half\n\n".utf8), isEvent: true)])
    }

    @Test func aCommentPassesAtOnceEvenWithoutABlankLine() {
        var splitter = SSEBlockSplitter()
        #expect(splitter.feed(Array(":ping\n".utf8)) == [SSEBlock(bytes: Array(":ping\n".utf8), isEvent: false)])
    }

    @Test func anIdWithNULIsIgnoredAndAFieldWithoutDataIsNoEvent() {
        let blocks = Self.split("id: a\u{0}b\ndata: x\n\nid: 3\n\n")
        #expect(blocks.map(\.isEvent) == [true, false])
        #expect(blocks[0].id == nil)
        #expect(blocks[1].id == nil)
    }

    @Test func aHugeBlockIsHandedOnAtTheBound() {
        var splitter = SSEBlockSplitter(maxBlockBytes: 64)
        let blocks = splitter.feed(Array(("data: " + String(repeating: "x", count: 200)).utf8))
        #expect(!blocks.isEmpty)
        #expect(blocks.allSatisfy { $0.bytes.count <= 65 })
    }

    @Test func aByteOrderMarkIsNoPartOfTheFirstField() {
        let blocks = Self.split("\u{FEFF}id: 1\ndata: x\n\n")
        #expect(blocks.first?.id == "1")
    }
}
