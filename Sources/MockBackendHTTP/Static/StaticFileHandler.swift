#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves files from one directory, and nothing outside it.
///
/// A path is refused (400) when it holds an encoded slash or backslash, a NUL, a
/// backslash, or a `..` segment, before or after percent-decoding; a path that resolves,
/// through symlinks, outside the directory is 404. Directories serve their `index.html`.
/// Responses carry an ETag from size and modification time, and `If-None-Match` gets 304.
public struct StaticFileHandler: Sendable {
    /// The directory, fully resolved, with no trailing slash.
    public let root: String

    /// Nil when `directory` does not exist.
    public init?(directory: String) {
        guard let resolved = Self.realPath(directory) else { return nil }
        root = resolved
    }

    /// The file's response, nil when no file is there (so the caller answers 404), or a
    /// thrown 400 for a path that tries to leave the directory.
    public func respond(to request: HTTPRequest) throws -> HTTPResponse? {
        guard let segments = try Self.safeSegments(request.path) else { return nil }
        var candidate = ([root] + segments).joined(separator: "/")
        var info = stat()
        guard stat(candidate, &info) == 0 else { return nil }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            candidate += "/index.html"
            guard stat(candidate, &info) == 0 else { return nil }
        }
        // Symlinks are followed, but where they lead must still be inside the root.
        guard let resolved = Self.realPath(candidate), resolved.hasPrefix(root + "/"),
            (info.st_mode & S_IFMT) == S_IFREG
        else { return nil }
        return Self.response(
            to: request, etag: Self.etag(info), contentType: MediaTypes.forPath(resolved),
            body: { FileManager.default.contents(atPath: resolved).map { Array($0) } })
    }

    /// The answer to a GET or HEAD of a file found at its path, for this handler and
    /// `EmbeddedFileHandler`: 405 for other methods, 304 when `If-None-Match` matches
    /// `etag`, else 200 with `body` (nil when the file went away meanwhile: 404).
    static func response(
        to request: HTTPRequest, etag: String, contentType: String, body: () -> [UInt8]?
    ) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = ProblemDetails(
                status: 405, code: "METHOD_NOT_ALLOWED", detail: "Static files answer GET and HEAD only."
            ).response
            response.headers.set("Allow", "GET, HEAD")
            return response
        }
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "no-cache"]
        if let ifNoneMatch = request.headers["If-None-Match"], Self.matches(ifNoneMatch, etag: etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        guard let bytes = body() else { return nil }
        headers.set("Content-Type", contentType)
        return HTTPResponse(status: 200, headers: headers, body: .bytes(bytes))
    }

    /// The decoded path segments; nil for a dotfile (never served); a 400 for anything that
    /// could step outside the root.
    static func safeSegments(_ rawPath: String) throws -> [String]? {
        let lowered = rawPath.lowercased()
        if lowered.contains("%2f") || lowered.contains("%5c") || lowered.contains("%00") {
            throw ProblemDetails.badRequest(
                "Encoded slashes, backslashes and NUL are not allowed in a path.", code: "BAD_PATH")
        }
        guard let decoded = PercentDecoding.decode(rawPath) else {
            throw ProblemDetails.badRequest("The path is not valid percent-encoded UTF-8.", code: "BAD_PATH")
        }
        if decoded.contains("\u{0}") || decoded.contains("\\") {
            throw ProblemDetails.badRequest("NUL and backslashes are not allowed in a path.", code: "BAD_PATH")
        }
        var segments: [String] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." {
                throw ProblemDetails.badRequest("'..' is not allowed in a path.", code: "BAD_PATH")
            }
            // Dotfiles (.git, .env) are never served.
            if segment.hasPrefix(".") { return nil }
            segments.append(String(segment))
        }
        return segments
    }

    /// A strong validator from size and modification time (RFC 9110 §8.8.3).
    static func etag(_ info: stat) -> String {
        #if canImport(Darwin)
        let seconds = Int(info.st_mtimespec.tv_sec)
        let nanoseconds = Int(info.st_mtimespec.tv_nsec)
        #else
        let seconds = Int(info.st_mtim.tv_sec)
        let nanoseconds = Int(info.st_mtim.tv_nsec)
        #endif
        return
            "\"\(String(Int(info.st_size), radix: 16))-\(String(seconds, radix: 16))\(String(nanoseconds, radix: 16))\""
    }

    /// `If-None-Match` uses weak comparison (RFC 9110 §13.1.2).
    static func matches(_ header: String, etag: String) -> Bool {
        let wanted = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        return header.split(separator: ",").contains { item in
            let tag = item.trimmingSpaces()
            return tag == "*" || (tag.hasPrefix("W/") ? tag.dropFirst(2) : tag) == wanted
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
