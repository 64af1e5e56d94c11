import CZlib

/// A gzip (RFC 1952) compressor on zlib's deflate, for whole bodies and for streams.
///
/// A stream's parts go through `compress(_:)`, each ending in a sync flush, so the client
/// can inflate every part as it arrives; `finish()` writes the gzip trailer. Not thread
/// safe: one owner at a time (a connection's queue).
package final class GzipDeflater {
    /// zlib's state points back at its `z_stream`, so the stream lives at a fixed address.
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    /// - Parameter level: 1 (fastest) to 9 (smallest); 6 is zlib's default.
    package init(level: Int32 = 6) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Fails only when memory runs out, which Swift traps on anyway.
        let status = mockbackend_deflateInit_gzip(stream, level)
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// A whole body as one gzip member.
    package static func gzip(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        let deflater = GzipDeflater(level: level)
        return bytes.withUnsafeBytes { deflater.run($0, flush: Z_FINISH) }
    }

    /// Compresses `bytes` and flushes, so everything given so far can be inflated from
    /// what this returns and what came before.
    package func compress(_ bytes: [UInt8]) -> [UInt8] {
        precondition(!finished, "compress after finish")
        return bytes.withUnsafeBytes { run($0, flush: Z_SYNC_FLUSH) }
    }

    /// The end of the member: what deflate still holds and the CRC-32 and size trailer.
    package func finish() -> [UInt8] {
        guard !finished else { return [] }
        finished = true
        return run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH)
    }

    private static let outputChunk = 16 * 1024

    private func run(_ input: UnsafeRawBufferPointer, flush: Int32) -> [UInt8] {
        var output: [UInt8] = []
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        // zlib's own loop: call until a call leaves output space unused, which means
        // deflate had nothing more to write for this flush mode.
        repeat {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.outputChunk) { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(Self.outputChunk)
                let status = deflate(stream, flush)
                precondition(status != Z_STREAM_ERROR, "deflate state corrupted")
                output.append(contentsOf: buffer[0..<(Self.outputChunk - Int(stream.pointee.avail_out))])
            }
        } while stream.pointee.avail_out == 0
        stream.pointee.next_in = nil
        return output
    }
}
