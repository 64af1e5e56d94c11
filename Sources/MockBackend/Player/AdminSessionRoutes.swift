import MockBackendAPI
import MockBackendHTTP

/// Session admin: the one-switch expiry (any reason and code), termination, the list.
struct AdminSessionRoutes {
    let player: PlayerService

    func register(on admin: inout RouterGroup) {
        let player = player
        admin.get("/sessions") { _ in try .json(player.accounts.sessions.map(AdminSession.init)) }
        admin.post("/sessions/{sessionId}/expire") { request in
            let sessionId = request.pathParameters["sessionId"] ?? ""
            let reason = try Self.reason(RequestBody.decode(SessionEndRequest.self, from: request))
            let ended = try Self.require(player.expire(sessionId, reason: reason), sessionId, player)
            return try .json(
                SessionEnding(
                    sessionId: sessionId, userId: ended.session.userId, state: ended.session.state.name,
                    reason: reason.reason, code: reason.code, streamsEnded: ended.streams))
        }
        admin.post("/sessions/{sessionId}/terminate") { request in
            let sessionId = request.pathParameters["sessionId"] ?? ""
            let body = try RequestBody.decode(SessionEndRequest.self, from: request)
            let reason = try Self.text(body.reason) ?? "Logged out elsewhere"
            let ended = try Self.require(player.terminate(sessionId, reason: reason), sessionId, player)
            return try .json(
                SessionEnding(
                    sessionId: sessionId, userId: ended.session.userId, state: ended.session.state.name,
                    reason: reason, code: nil, streamsEnded: ended.streams))
        }
    }

    /// The reason of an expiry: any text with any integer code. One of the backend's own
    /// (`Expired` 1, `Logout` 2, `Kicked` 3) may be named by either field alone; any other
    /// needs both. Neither: `Expired` (1).
    static func reason(_ body: SessionEndRequest) throws -> SessionExitReason {
        let text = try self.text(body.reason)
        switch (text, body.code) {
        case (nil, nil):
            return .expired
        case (let text?, let code?):
            return SessionExitReason(reason: text, code: code)
        case (let text?, nil):
            guard let known = SessionExitReason.known.first(where: { $0.reason == text }) else {
                throw ProblemDetails.badRequest(
                    "Field 'code' is required with a reason other than Expired, Logout or Kicked.", code: "INVALID_BODY"
                )
            }
            return known
        case (nil, let code?):
            guard let known = SessionExitReason.known.first(where: { $0.code == code }) else {
                throw ProblemDetails.badRequest(
                    "Field 'reason' is required with a code other than 1, 2 or 3.", code: "INVALID_BODY")
            }
            return known
        }
    }

    /// A reason text: one line of 1 to 200 characters.
    private static func text(_ reason: String?) throws -> String? {
        guard let reason else { return nil }
        guard !reason.isEmpty, reason.unicodeScalars.count <= 200, !reason.contains(where: \.isNewline) else {
            throw ProblemDetails.badRequest(
                "Field 'reason' must be one line of 1 to 200 characters.", code: "INVALID_BODY")
        }
        return reason
    }

    private static func require(
        _ ended: (session: PlayerSession, streams: Int)?, _ sessionId: String, _ player: PlayerService
    ) throws -> (session: PlayerSession, streams: Int) {
        if let ended { return ended }
        guard let session = player.accounts.session(sessionId) else {
            throw ProblemDetails(status: 404, code: "SESSION_NOT_FOUND", detail: "No session \(sessionId).")
        }
        throw ProblemDetails(
            status: 409, code: "SESSION_ALREADY_ENDED", detail: "Session \(sessionId) is already \(session.state.name)."
        )
    }
}

extension AdminSession {
    /// A session as the admin API shows it.
    init(_ session: PlayerSession) {
        var reason: SessionExitReason?
        if case .expired(let exit) = session.state { reason = exit }
        self.init(
            sessionId: session.sessionId, id: session.id, userId: session.userId, loginTime: session.loginTime,
            state: session.state.name, reason: reason?.reason, code: reason?.code)
    }
}
