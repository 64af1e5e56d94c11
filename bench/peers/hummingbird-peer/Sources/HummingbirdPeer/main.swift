// A minimal Hummingbird server with one route, `GET /health` -> `{"status":"ok"}`,
// used as the comparison peer in bench/run.sh.
//
// Usage: HummingbirdPeer [PORT]   (or PORT=... in the environment; 0 = pick a free port)
// Listens on 127.0.0.1 only. Once bound it prints one line to stdout:
//   hummingbird listening on http://127.0.0.1:PORT
import Foundation
import Hummingbird
import Logging

let arguments = CommandLine.arguments
let portText = arguments.count > 1 ? arguments[1] : (ProcessInfo.processInfo.environment["PORT"] ?? "8080")
guard let port = Int(portText), (0...65535).contains(port) else {
    FileHandle.standardError.write(Data("invalid port: \(portText)\n".utf8))
    exit(2)
}

let body = ByteBuffer(string: #"{"status":"ok"}"#)

let router = Router()
router.get("health") { _, _ -> Response in
    Response(
        status: .ok,
        headers: [.contentType: "application/json"],
        body: ResponseBody(byteBuffer: body)
    )
}

var logger = Logger(label: "hummingbird-peer")
logger.logLevel = .warning

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        let bound = channel.localAddress?.port ?? port
        print("hummingbird listening on http://127.0.0.1:\(bound)")
        fflush(nil)
    },
    logger: logger
)
try await app.runService()
