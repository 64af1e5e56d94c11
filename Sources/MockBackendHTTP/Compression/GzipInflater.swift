import CZlib

/// Why a gzip body could not be inflated.
package struct GzipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// zlib's status code.
    package let status: Int32
    package let message: String

    package var description: String { "gzip: \(message) (zlib status \(status))" }
}

/// A gzip decompressor on zlib's inflate, fed in parts as they arrive: each part returns
/// what can be inflated so far. Clients and tests use it to read compressed bodies and
/// streams. Not thread safe: one owner at a time.
package final class GzipInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the gzip trailer has been read.
    package private(set) var isFinished = false

    package init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = mockbackend_inflateInit_gzip(stream)
        precondition(status == Z_OK, "inflateInit2 failed: \(status)")
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// A whole gzip body. Throws when it is corrupt or cut short.
    package static func gunzip(_ bytes: [UInt8]) throws(GzipError) -> [UInt8] {
        let inflater = GzipInflater()
        let output = try inflater.decompress(bytes)
        guard inflater.isFinished else { throw GzipError(status: Z_BUF_ERROR, message: "truncated body") }
        return output
    }

    /// Inflates the next part. Bytes after the end of the gzip member are ignored.
    package func decompress(_ bytes: [UInt8]) throws(GzipError) -> [UInt8] {
        guard !isFinished, !bytes.isEmpty else { return [] }
        var output: [UInt8] = []
        let chunk = 16 * 1024
        let result: GzipError? = bytes.withUnsafeBytes { input in
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(input.count)
            defer { stream.pointee.next_in = nil }
            while true {
                var status: Int32 = Z_OK
                let produced = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: chunk) { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = uInt(chunk)
                    status = inflate(stream, Z_SYNC_FLUSH)
                    let count = chunk - Int(stream.pointee.avail_out)
                    output.append(contentsOf: buffer[0..<count])
                    return count
                }
                switch status {
                case Z_STREAM_END:
                    isFinished = true
                    return nil
                case Z_OK:
                    if stream.pointee.avail_in == 0 && produced < chunk { return nil }
                case Z_BUF_ERROR:
                    // No progress possible: all input used, more is needed.
                    return nil
                default:
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "corrupt data"
                    return GzipError(status: status, message: message)
                }
            }
        }
        if let result { throw result }
        return output
    }
}
