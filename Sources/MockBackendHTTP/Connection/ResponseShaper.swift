/// One step of a connection's write path.
public enum OutboundSegment: Sendable, Equatable {
    /// Bytes to send, in one write call where the socket takes them.
    case bytes([UInt8])
    /// Bytes sent piece by piece with a pause between pieces. The pieces are cut as the
    /// socket drains, so a body sent a byte at a time costs no more memory than the body.
    case paced(PacedBytes)
    /// Send nothing for this long, then go on with what follows.
    case pause(milliseconds: Int)
    /// End the connection here; nothing after this is sent. With `reset`, the peer sees RST.
    case close(reset: Bool)
    /// From here on send nothing and read nothing, and never close: the connection looks
    /// like one whose peer went away without a word (a phone that left Wi-Fi). Only the
    /// server ends it (a stream's `abort`, or the server stopping).
    case blackhole
    /// Not sent: marks that the last bytes of this many stream events are in the segments
    /// before it. They count as delivered (`DeliveryTally`) once those bytes are written.
    case delivered(events: Int)
    /// Not sent: this many stream events were dropped on the way here (a `mute` fault);
    /// noted in order with the deliveries around them.
    case dropped(events: Int)
    /// An HTTP/2 ending: nothing after this is sent. On an HTTP/1.1 connection it is the
    /// close it stands for (`HTTP2Ending`).
    case http2(HTTP2Ending)
}

/// How a fault ends an HTTP/2 stream beyond a plain cut (`OutboundSegment.http2`).
public enum HTTP2Ending: Sendable, Equatable {
    /// RST_STREAM with this code (RFC 9113 §7); RST on HTTP/1.1.
    case resetStream(code: UInt32)
    /// GOAWAY with this code, naming `lastStreamID` (nil: the last stream processed), and
    /// the connection closes; FIN on HTTP/1.1.
    case goAway(code: UInt32, lastStreamID: Int32?)

    /// What it is on an HTTP/1.1 connection: a close, with RST for a stream reset.
    public var resetsHTTP1: Bool {
        if case .resetStream = self { return true }
        return false
    }
}

/// Bytes to send in pieces, a pause between each two (`OutboundSegment.paced`).
public struct PacedBytes: Sendable, Equatable {
    /// Where the pieces end.
    public enum Cut: Sendable, Equatable {
        /// Pieces of this many bytes (at least one).
        case every(Int)
        /// Between the CR and the LF of every CRLF.
        case betweenCRLF
        /// Right after the lead byte of every multi-byte UTF-8 character.
        case insideUTF8
    }

    public let bytes: [UInt8]
    public let cut: Cut
    public let pauseMilliseconds: Int
    /// Bytes already handed out as pieces.
    public private(set) var offset = 0

    public init(_ bytes: [UInt8], cut: Cut, pauseMilliseconds: Int) {
        self.bytes = bytes
        self.cut = cut
        self.pauseMilliseconds = max(0, pauseMilliseconds)
    }

    /// Bytes not handed out yet.
    public var remaining: Int { bytes.count - offset }

    /// Takes the next piece: the bytes up to the next cut, or all that remain.
    public mutating func takePiece() -> ArraySlice<UInt8> {
        let end = nextCut()
        defer { offset = end }
        return bytes[offset..<end]
    }

    private func nextCut() -> Int {
        switch cut {
        case .every(let size):
            return min(bytes.count, offset + max(1, size))
        case .betweenCRLF:
            var index = offset
            while index + 1 < bytes.count {
                if bytes[index] == 13, bytes[index + 1] == 10, index + 1 > offset { return index + 1 }
                index += 1
            }
            return bytes.count
        case .insideUTF8:
            var index = offset
            while index < bytes.count {
                if bytes[index] >= 0xC0, index + 1 > offset, index + 1 < bytes.count { return index + 1 }
                index += 1
            }
            return bytes.count
        }
    }
}

/// What a write handed to a `ResponseShaper` carries.
public enum ResponseWriteKind: Sendable, Equatable {
    /// The status line and header fields.
    case head
    /// Body bytes, already framed: one whole chunk on a chunked response.
    case body
    /// The end of the body: the last chunk on a chunked response, else no bytes.
    case end
    /// On a connection upgraded to WebSocket: one whole data message, one frame (text or
    /// binary, RFC 6455 §5.6). The server never fragments its messages, so a shaper counts
    /// messages by counting these writes.
    case message
    /// On a connection upgraded to WebSocket: one control frame (ping, pong or close,
    /// RFC 6455 §5.5).
    case control
}

/// Turns the bytes of one response into what the socket actually sees.
///
/// This is the seam for byte-level faults: a shaper may hold bytes back, split them,
/// insert pauses, replace them, or end the connection with FIN or RST. It is called on the
/// connection's queue, in write order, once per write; every response gets its own copy.
/// The server never coalesces a shaper's `.bytes` segments, so a split it makes is a
/// separate write call.
public protocol ResponseShaper: Sendable {
    mutating func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment]

    /// Whether the shaper marks where the stream events it lets through end
    /// (`OutboundSegment.delivered`) and which it drops (`.dropped`). When false, the
    /// connection marks each write's events after everything the shaper made of it: right
    /// for a shaper that only delays or splits bytes. Default false.
    var marksEvents: Bool { get }
}

extension ResponseShaper {
    public var marksEvents: Bool { false }
}

/// Two shapers in a row: every `.bytes` segment of the first goes through the second with
/// the kind of the write it came from; the first's pauses and marks stay where they are. A
/// stub's own delays and a fault's shaping so combine instead of one replacing the other.
/// It marks events when either does; only one of the two may.
public struct ChainedShaper: ResponseShaper {
    public var first: any ResponseShaper
    public var second: any ResponseShaper

    public var marksEvents: Bool { first.marksEvents || second.marksEvents }

    public init(_ first: any ResponseShaper, then second: any ResponseShaper) {
        self.first = first
        self.second = second
    }

    public mutating func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        var output: [OutboundSegment] = []
        for segment in first.shape(bytes, kind: kind) {
            switch segment {
            case .bytes(let piece):
                output += second.shape(piece, kind: kind)
            case .paced(var paced):
                // Each piece goes through the second shaper, the pauses kept between them.
                while paced.remaining > 0 {
                    if paced.offset > 0 { output.append(.pause(milliseconds: paced.pauseMilliseconds)) }
                    output += second.shape(Array(paced.takePiece()), kind: kind)
                }
            case .pause, .close, .blackhole, .delivered, .dropped, .http2:
                output.append(segment)
            }
        }
        return output
    }
}
