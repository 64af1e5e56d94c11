// swift-tools-version: 6.0
// Peer server for bench/run.sh (`GET /health`) and bench/sse/run.sh (`GET /sse`, `POST /publish`), on Hummingbird.
// Built on its own: swift build -c release --package-path bench/peers/hummingbird
import PackageDescription

let package = Package(
    name: "hummingbird-peer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdPeer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ]
)
