#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file compiled into the binary: its path, its bytes and a strong ETag.
///
/// Generated sources (`scripts/embed-resources.py`) build these from base64 text, which is
/// decoded once, when the value is made. The ETag is fixed at generation from the size
/// and SHA-256 of the bytes, so it changes exactly when the content does (RFC 9110 §8.8.3).
public struct EmbeddedFile: Sendable {
    /// The path relative to the served root, segments joined with `/`, no leading slash.
    public let path: String
    /// A strong entity tag, quotes included.
    public let etag: String
    public let bytes: [UInt8]

    public init(path: String, etag: String, bytes: [UInt8]) {
        self.path = path
        self.etag = etag
        self.bytes = bytes
    }

    /// Decodes `base64`, ignoring line breaks and indentation; a text that does not decode
    /// is a generator bug and stops the process.
    public init(path: String, etag: String, base64: String) {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
            fatalError("The embedded file \(path) is not valid base64: regenerate it.")
        }
        self.init(path: path, etag: etag, bytes: Array(data))
    }

    /// The bytes as UTF-8 text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
