#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The server's side of the opening handshake (RFC 6455 §4.2): whether a request is a valid
/// upgrade to WebSocket, and the `Sec-WebSocket-Accept` value that proves the server read it.
public enum WebSocketHandshake {
    /// The GUID of RFC 6455 §1.3, appended to the client's key.
    public static let keyGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The only version of the protocol there is (§4.1, §11.6).
    public static let version = "13"

    /// base64(SHA-1(key + GUID)) (§4.2.2 item 5.4), for the key exactly as sent.
    public static func acceptValue(forKey key: String) -> String {
        Data(SHA1.hash(Array((key + keyGUID).utf8))).base64EncodedString()
    }

    /// Checks `request` against §4.2.1 and returns the `Sec-WebSocket-Accept` value, or
    /// the answer that refuses it. The order of the checks decides which answer a request
    /// with several faults gets: first whether it asks for WebSocket at all (426 with
    /// `Upgrade: websocket`), then the method, HTTP version and `Connection` (400), then
    /// the version of the protocol (426 with `Sec-WebSocket-Version: 13`, §4.4), then the
    /// key (400).
    public static func validate(_ request: HTTPRequest) -> Result<String, WebSocketHandshakeError> {
        // §4.2.1 item 3: an Upgrade field that includes "websocket" (a case-insensitive token).
        guard request.headers.listContains("Upgrade", token: "websocket") else { return .failure(.upgradeRequired) }
        // §4.2.1 item 1: a GET request, HTTP/1.1 or higher.
        guard request.method == "GET" else { return .failure(.methodNotGET(request.method)) }
        guard request.version != .http10 else { return .failure(.http10) }
        // §4.2.1 item 4: a Connection field that includes the "Upgrade" token, among others.
        guard request.headers.listContains("Connection", token: "upgrade") else {
            return .failure(.connectionNotUpgrade)
        }
        // §4.2.1 item 6, §4.4: version 13, else 426 naming the versions the server speaks.
        let versions = request.headers.values(for: "Sec-WebSocket-Version")
        guard versions.count == 1, versions[0].trimmingSpaces() == version else {
            return .failure(.unsupportedVersion(versions.joined(separator: ", ")))
        }
        // §4.2.1 item 5: one key, base64 of 16 bytes.
        let keys = request.headers.values(for: "Sec-WebSocket-Key")
        guard keys.count == 1 else {
            return .failure(.invalidKey(keys.isEmpty ? "is missing" : "is sent \(keys.count) times"))
        }
        let key = String(keys[0].trimmingSpaces())
        guard isValidKey(key) else { return .failure(.invalidKey("\"\(key)\" is not the base64 of 16 bytes")) }
        return .success(acceptValue(forKey: key))
    }

    /// 16 bytes in base64 are exactly 24 characters, the last two `==` (RFC 4648 §4).
    static func isValidKey(_ key: String) -> Bool {
        guard key.utf8.count == 24, key.hasSuffix("=="), let decoded = Data(base64Encoded: key) else { return false }
        return decoded.count == 16
    }

    /// The head of the 101 response (§4.2.2 item 5, RFC 9110 §15.2.2): the status line, the
    /// upgrade fields, then `headers` (a subprotocol, cookies), `Date` and `Server`. Fields
    /// the connection sets itself are dropped from `headers`, as for any response.
    static func switchingProtocolsHead(accept: String, headers: HTTPHeaders) -> [UInt8] {
        var response = headers
        for name in ["Upgrade", "Sec-WebSocket-Accept"] { response.remove(name) }
        response.add("Upgrade", "websocket")
        response.add("Sec-WebSocket-Accept", accept)
        var head = HTTPResponseEncoder.head(
            status: 101, headers: response, version: .http11, framing: .none, keepAlive: true)
        // The encoder never copies a handler's Connection field; this one is the upgrade's own.
        head.removeLast(2)
        head += Array("Connection: Upgrade\r\n\r\n".utf8)
        return head
    }
}
