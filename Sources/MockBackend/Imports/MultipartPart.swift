import MockBackendHTTP

/// One part of a `multipart/form-data` body (RFC 7578 §4): its header fields and its bytes.
package struct MultipartPart: Sendable, Equatable {
    /// The part's header fields, in order and as sent.
    package var headers: HTTPHeaders
    /// The `name` parameter of the part's Content-Disposition: the form field the part is the value of.
    package var name: String?
    /// The `filename` parameter of the part's Content-Disposition, as sent (`""` for an empty file input).
    package var filename: String?
    /// The part's Content-Type field as sent, parameters included; nil when absent, which
    /// RFC 7578 §4.4 reads as `text/plain`.
    package var contentType: String?
    /// The part's bytes, exactly as sent.
    package var body: [UInt8]

    /// A part with these headers and bytes; `name`, `filename` and `contentType` are read from the headers.
    ///
    /// Parameter values lose their quotes and backslash escapes and are otherwise kept as sent.
    /// Browsers (and recent curl) write `"`, CR and LF in names as `%22`, `%0D` and `%0A`
    /// (WHATWG HTML, multipart/form-data encoding) but leave `%` itself alone, so decoding them
    /// would guess; they are left to the caller. `filename*` is not read: RFC 7578 §4.2 says
    /// the RFC 5987 encoding "MUST NOT be used".
    package init(headers: HTTPHeaders, body: [UInt8]) {
        self.headers = headers
        self.body = body
        contentType = headers["Content-Type"]
        // RFC 7578 §4.2: "Each part MUST contain a Content-Disposition header field where the
        // disposition type is "form-data". The Content-Disposition header field MUST also
        // contain an additional parameter of "name"". A part breaking that keeps nil here.
        let disposition = headers["Content-Disposition"].map(HeaderParameters.init)
        name = disposition?["name"]
        filename = disposition?["filename"]
    }
}
