import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request journal as HAR 1.2 (`GET /__admin/requests?format=har`), what browser dev
/// tools and HAR libraries read: each entry's request with its headers, query and body
/// excerpt, and its answer with the headers and the start of the body as written — an
/// event stream's events as its text. Bodies are kept up to `ResponseCapture.excerptLength`
/// bytes, for the newest `RequestJournal.captureCapacity` entries (older ones show their
/// status alone); `content.size` counts them all. Times the journal does not know (DNS,
/// connect) are -1, as HAR says.
struct HARExport: Encodable {
    struct Log: Encodable {
        var version = "1.2"
        var creator = Creator()
        var entries: [Entry]
    }

    struct Creator: Encodable {
        var name = "mockbackend"
        var version = MockBackendVersion.current
    }

    struct Pair: Encodable {
        var name: String
        var value: String
    }

    struct Entry: Encodable {
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache = Cache()
        var timings: Timings
        var connection: String
    }

    struct Request: Encodable {
        var method: String
        var url: String
        var httpVersion: String
        var cookies: [Pair] = []
        var headers: [Pair]
        var queryString: [Pair]
        var postData: PostData?
        var headersSize = -1
        var bodySize: Int
    }

    struct PostData: Encodable {
        var mimeType: String
        var text: String
    }

    struct Response: Encodable {
        var status: Int
        var statusText: String
        var httpVersion: String
        var cookies: [Pair] = []
        var headers: [Pair]
        var content: Content
        var redirectURL: String
        var headersSize = -1
        var bodySize = -1
    }

    struct Content: Encodable {
        var size: Int
        var mimeType: String
        var text: String?
        var encoding: String?
    }

    struct Cache: Encodable {}

    struct Timings: Encodable {
        var blocked = -1
        var dns = -1
        var connect = -1
        var send = 0.0
        var wait: Double
        var receive = 0.0
        var ssl = -1
    }

    var log: Log

    /// Entries oldest first, as HAR lists them.
    init(_ rows: [(entry: JournaledRequest, receivedAt: Date, answer: ResponseCapture.Snapshot?)]) {
        log = Log(entries: rows.reversed().map(Self.entry))
    }

    private static func entry(_ row: (entry: JournaledRequest, receivedAt: Date, answer: ResponseCapture.Snapshot?))
        -> Entry
    {
        let (journaled, receivedAt, answer) = row
        let version = answer?.httpVersion ?? "HTTP/1.1"
        let host = journaled.headers.first { $0.key.lowercased() == "host" }?.value ?? "localhost"
        let query = HTTPRequest(method: journaled.method, target: journaled.target).queryItems
        let contentType = journaled.headers.first { $0.key.lowercased() == "content-type" }?.value
        let request = Request(
            method: journaled.method, url: "\(answer?.scheme ?? "http")://\(host)\(journaled.target)",
            httpVersion: version,
            headers: journaled.headers.sorted { $0.key < $1.key }.map { Pair(name: $0.key, value: $0.value) },
            queryString: query.map { Pair(name: $0.name, value: $0.value) },
            postData: journaled.bodySize > 0
                ? PostData(mimeType: contentType ?? "", text: journaled.bodyExcerpt) : nil,
            bodySize: journaled.bodySize)
        return Entry(
            startedDateTime: Timestamp.iso8601(receivedAt), time: journaled.durationMs, request: request,
            response: response(status: journaled.status, answer: answer, version: version),
            timings: Timings(wait: journaled.durationMs), connection: String(journaled.connection))
    }

    private static func response(status: Int, answer: ResponseCapture.Snapshot?, version: String) -> Response {
        let headers = answer?.headers.map { Pair(name: $0.name, value: $0.value) } ?? []
        let body = answer?.body ?? []
        var content = Content(
            size: body.count + (answer?.omitted ?? 0), mimeType: answer?.headers["Content-Type"] ?? "")
        if !body.isEmpty {
            if let text = String(validating: body, as: UTF8.self) {
                content.text = text
            } else {
                content.text = Data(body).base64EncodedString()
                content.encoding = "base64"
            }
        }
        return Response(
            status: status, statusText: HTTPStatus.reasonPhrase(status), httpVersion: version, headers: headers,
            content: content, redirectURL: answer?.headers["Location"] ?? "")
    }
}
