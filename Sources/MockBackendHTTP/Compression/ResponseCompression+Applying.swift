extension ResponseCompression {
    /// `response` as sent to `request` under this policy, over HTTP/1.1 or HTTP/2 alike: a
    /// body known in full is gzipped here; a compressed stream gets its deflater, used by
    /// every later write. `Vary: Accept-Encoding` marks every response whose encoding
    /// depended on the request (RFC 9110 §12.5.5), compressed or not.
    func applying(to response: HTTPResponse, for request: HTTPRequest) -> (HTTPResponse, GzipDeflater?) {
        let policy = self
        guard policy.isEnabled, response.headers["Content-Encoding"] == nil,
            !HTTPResponseEncoder.statusForbidsBody(response.status)
        else { return (response, nil) }
        let contentType = response.headers["Content-Type"]
        var response = response
        switch response.body {
        case .bytes(let body):
            guard body.count >= policy.minimumBodyBytes, ResponseCompression.isCompressible(contentType: contentType)
            else { return (response, nil) }
            Self.addVaryAcceptEncoding(to: &response.headers)
            guard ResponseCompression.accepts(request) else { return (response, nil) }
            response.body = .bytes(GzipDeflater.gzip(body))
            Self.markGzipped(&response.headers)
            return (response, nil)
        case .stream:
            guard response.declaredLength == nil, policy.compressesEventStreams,
                ResponseCompression.isEventStream(contentType: contentType)
            else {
                return (response, nil)
            }
            Self.addVaryAcceptEncoding(to: &response.headers)
            guard ResponseCompression.accepts(request) else { return (response, nil) }
            Self.markGzipped(&response.headers)
            return (response, GzipDeflater())
        case .webSocket, .deferred:
            // A 101 carries no content; its frames are never gzipped (no extension, §9). A
            // deferred response is compressed once it is known.
            return (response, nil)
        }
    }

    /// `Content-Encoding: gzip`, and a weak ETag: the compressed bytes are not the ones
    /// the strong tag names, but they mean the same (RFC 9110 §8.8.1).
    private static func markGzipped(_ headers: inout HTTPHeaders) {
        headers.set("Content-Encoding", "gzip")
        if let etag = headers["ETag"], !etag.hasPrefix("W/") { headers.set("ETag", "W/" + etag) }
    }

    private static func addVaryAcceptEncoding(to headers: inout HTTPHeaders) {
        guard let vary = headers["Vary"] else {
            headers.set("Vary", "Accept-Encoding")
            return
        }
        let names = vary.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
        if names.contains("*") || names.contains("accept-encoding") { return }
        headers.set("Vary", vary + ", Accept-Encoding")
    }
}
