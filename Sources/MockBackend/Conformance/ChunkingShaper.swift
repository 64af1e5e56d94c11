import MockBackendHTTP

/// Writes the body in pieces of `size` bytes with `delayMilliseconds` between them; the
/// head goes out whole. Each piece is its own write call.
struct ChunkingShaper: ResponseShaper {
    let size: Int
    let delayMilliseconds: Int

    func shape(_ bytes: [UInt8], kind: ResponseWriteKind) -> [OutboundSegment] {
        guard kind == .body, size > 0, bytes.count > size else { return [.bytes(bytes)] }
        var segments: [OutboundSegment] = []
        var start = 0
        while start < bytes.count {
            if start > 0, delayMilliseconds > 0 { segments.append(.pause(milliseconds: delayMilliseconds)) }
            let end = min(start + size, bytes.count)
            segments.append(.bytes(Array(bytes[start..<end])))
            start = end
        }
        return segments
    }
}
