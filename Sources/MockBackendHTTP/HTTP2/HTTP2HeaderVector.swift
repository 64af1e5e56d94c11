#if canImport(CNghttp2)
import CNghttp2

/// Header fields as nghttp2 takes them: a vector of `nghttp2_nv`, every name and value in
/// one buffer that lives for the call (nghttp2 copies what it keeps).
package enum HTTP2HeaderVector {
    /// Calls `body` with `fields` as that vector. Names go as given: HTTP/2 wants them in
    /// lower case (RFC 9113 §8.2.1).
    package static func with<Result>(
        _ fields: [(String, String)], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> Result
    ) -> Result {
        var bytes: [UInt8] = []
        // Offsets and lengths of each name and value in `bytes`.
        var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
        spans.reserveCapacity(fields.count)
        for (name, value) in fields {
            let nameStart = bytes.count
            bytes.append(contentsOf: name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
        }
        // A pointer even for an empty list.
        bytes.append(0)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            var vector = spans.map { span in
                nghttp2_nv(
                    name: base + span.name, value: base + span.value, namelen: span.nameLength,
                    valuelen: span.valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return vector.withUnsafeMutableBufferPointer { body($0) }
        }
    }
}
#endif
