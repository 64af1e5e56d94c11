import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request journal: `GET /__admin/requests?method=&path=&since=&limit=` (newest first;
/// `&format=har` for HAR 1.2, `HARExport`),
/// `POST /__admin/requests/count` with a matcher, `DELETE /__admin/requests`.
struct AdminRequestRoutes {
    let journal: RequestJournal

    func register(on admin: inout RouterGroup) {
        let journal = journal
        admin.get("/requests") { request in
            var matcher = RequestMatcher(method: request.queryValue("method"), path: request.queryValue("path"))
            matcher = try matcher.validated()
            let since = try request.queryValue("since").map { text -> Date in
                guard let date = Timestamp.parse(text) else {
                    throw ProblemDetails.badRequest(
                        "since must be an ISO 8601 time such as 2026-11-22T10:00:00Z.", code: "INVALID_QUERY")
                }
                return date
            }
            var limit = 100
            if let text = request.queryValue("limit") {
                guard let value = Int(text), (1...5000).contains(value) else {
                    throw ProblemDetails.badRequest("limit must be from 1 to 5000.", code: "INVALID_QUERY")
                }
                limit = value
            }
            switch request.queryValue("format") {
            case nil, "json":
                return try .json(journal.entries(matching: matcher, since: since, limit: limit))
            case "har":
                var response = try HTTPResponse.json(
                    HARExport(journal.entriesWithAnswers(matching: matcher, since: since, limit: limit)))
                response.headers.set("Content-Disposition", #"attachment; filename="mockbackend.har""#)
                return response
            case let other?:
                throw ProblemDetails.badRequest("format must be json or har, not \(other).", code: "INVALID_QUERY")
            }
        }
        admin.post("/requests/count") { request in
            let matcher = try RequestBody.decode(RequestMatcher.self, from: request).validated()
            return try .json(RequestCount(count: journal.count(matching: matcher)))
        }
        admin.delete("/requests") { _ in try .json(RequestsCleared(cleared: journal.clear())) }
    }
}
