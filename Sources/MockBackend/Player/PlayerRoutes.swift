import MockBackendAPI
import MockBackendHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The player API (`openapi/openapi.yaml`, tag `player`): login, profile, balance, open bets, the casino route on the
/// session cookie, logout, and the user-info stream. Errors keep the backend's own body.
struct PlayerRoutes {
    let player: PlayerService
    let endpoint: SSEEndpoint

    func register(on router: inout Router) {
        let player = player
        let endpoint = endpoint
        let auth = PlayerAuthentication(accounts: player.accounts)
        router.post("/v1/player/legislation/login") { request in try Self.login(request, player: player) }
        router.post("/v1/player/logout") { request in
            let (session, _) = try auth.authenticate(request, userId: nil)
            player.expire(session.sessionId, reason: .logout)
            return .json(bytes: Array(#"{"success":true}"#.utf8))
        }
        router.get("/v1/player/{userId}/details") { request in
            let (_, user) = try auth.authenticate(request, userId: try PlayerAuthentication.userId(of: request))
            return try .json(PlayerProfile(user))
        }
        router.get("/v2/player/{userId}/balance") { request in
            let (_, user) = try auth.authenticate(request, userId: try PlayerAuthentication.userId(of: request))
            return try .json(
                PlayerBalanceResponse(currency: user.currency, real: user.realBalance, bonus: user.bonusBalance))
        }
        router.get("/v1/player/{userId}/bets/open") { request in
            let (_, user) = try auth.authenticate(request, userId: try PlayerAuthentication.userId(of: request))
            var limit = 20
            if let text = request.queryValue("limit") {
                guard let value = Int(text), (1...100).contains(value) else {
                    throw PlayerFailure.badRequest("limit must be a number from 1 to 100")
                }
                limit = value
            }
            return try .json(Array(OpenBet.samples(for: user).prefix(limit)))
        }
        router.get("/v1/casino/games/recent") { request in
            let (_, user) = try auth.authenticateByCookie(request)
            return try .json(RecentGame.samples(for: user))
        }
        router.get("/v2/player/{userId}/information/updates") { request in
            let (session, _) = try auth.authenticate(request, userId: try PlayerAuthentication.userId(of: request))
            return try player.userInfo.response(for: request, session: session, endpoint: endpoint)
        }
    }

    /// The login. Its body is read as every JSON body is (415 problem+json for another
    /// type, `RequestBody`); what is wrong inside it gets the player API's own 400 body.
    static func login(_ request: HTTPRequest, player: PlayerService) throws -> HTTPResponse {
        let body = try RequestBody.json(of: request)
        let credentials: PlayerLoginRequest
        do {
            credentials = try JSONDecoder().decode(PlayerLoginRequest.self, from: Data(body))
        } catch let error as DecodingError {
            throw PlayerFailure.badRequest(RequestBody.describe(error))
        }
        guard let session = player.login(credentials.username, password: credentials.password) else {
            throw PlayerFailure.invalidCredentials
        }
        var response = try HTTPResponse.json(
            PlayerLoginResponse(sessionId: session.sessionId, id: session.id, userId: session.userId))
        response.headers.add("Set-Cookie", "sessionId=\(session.sessionId); Path=/; HttpOnly; SameSite=Lax")
        return response
    }
}

/// `GET /v1/player/{userId}/details`.
struct PlayerProfile: Encodable {
    var userId: Int
    var username: String
    var email: String
    var firstName: String
    var lastName: String
    var currency: String
    var countryCode = "MT"
    var language = "en"
    var isEmailVerified = true

    init(_ user: UserAccount) {
        userId = user.userId
        username = user.username
        email = user.email
        firstName = user.firstName
        lastName = user.lastName
        currency = user.currency
    }
}

/// An open bet of the sample list, the same for a user every time.
struct OpenBet: Encodable {
    struct Selection: Encodable {
        var eventName: String
        var marketName: String
        var outcomeName: String
        var odds: Double
    }

    var betId: String
    var placedAt: String
    var stake: Double
    var currency: String
    var potentialWinnings: Double
    var status = "Open"
    var selections: [Selection]

    static func samples(for user: UserAccount) -> [OpenBet] {
        let matches = [
            ("Arsenal v Chelsea", "Match Result", "Arsenal", 2.1),
            ("Real Madrid v Barcelona", "Both Teams To Score", "Yes", 1.65),
            ("Lakers v Celtics", "Money Line", "Celtics", 1.9),
        ]
        return matches.enumerated().map { index, match in
            let stake = Double(5 * (index + 1))
            return OpenBet(
                betId: "\(user.userId)-\(index + 1)", placedAt: "2026-11-2\(index)T18:00:00.000Z", stake: stake,
                currency: user.currency, potentialWinnings: Money.rounded(stake * match.3),
                selections: [Selection(eventName: match.0, marketName: match.1, outcomeName: match.2, odds: match.3)])
        }
    }
}

/// `GET /v1/casino/games/recent`.
struct RecentGame: Encodable {
    var gameId: String
    var name: String
    var vendor: String
    var lastPlayedAt: String

    static func samples(for user: UserAccount) -> [RecentGame] {
        [
            RecentGame(
                gameId: "starburst", name: "Starburst", vendor: "NetEnt", lastPlayedAt: "2026-11-21T20:15:00.000Z"),
            RecentGame(
                gameId: "book-of-dead", name: "Book of Dead", vendor: "Play'n GO",
                lastPlayedAt: "2026-11-20T19:02:00.000Z"),
        ]
    }
}
