// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "mockbackend",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "mockbackend", targets: ["MockBackendCLI"]),
        .library(name: "MockBackendHTTP", targets: ["MockBackendHTTP"]),
        .library(name: "MockBackend", targets: ["MockBackend"]),
        .library(name: "MockBackendTesting", targets: ["MockBackendTesting"]),
        .library(name: "ServerSentEvents", targets: ["ServerSentEvents"]),
        .library(name: "MockBackendClient", targets: ["MockBackendClient"]),
        .library(name: "MockBackendAPI", targets: ["MockBackendAPI"]),
        .library(name: "MockBackendTLS", targets: ["MockBackendTLS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // What every module of the package shares and no user should touch: a lock that travels
        // with its data, Duration arithmetic, collections that give their room back.
        .target(name: "MockBackendSupport"),
        // The text/event-stream codec (WHATWG HTML §9.2), shared by server and client.
        .target(name: "ServerSentEvents"),
        // Codable wire types of the backends, mirroring openapi/ (golden examples in openapi/examples/).
        .target(name: "MockBackendAPI"),
        // The system zlib (zlib1g-dev) and OpenSSL (libssl-dev), each imported by one module.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // Linux's epoll and eventfd, which the Glibc module leaves out (empty elsewhere).
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // The system nghttp2 (libnghttp2-dev) for HTTP/2 frames, on Linux; elsewhere the
        // server speaks HTTP/1.1 only.
        .systemLibrary(
            name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]),
        // Sockets, the HTTP/1.1 parser and encoder, connections, routing, static files and
        // gzip. Knows nothing of the mock's backends.
        .target(
            name: "MockBackendHTTP",
            dependencies: [
                "MockBackendSupport", "CZlib", "CEpoll",
                .target(name: "CNghttp2", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // TLS on the system OpenSSL: a byte stream under the HTTP code, certificates.
        .target(
            name: "MockBackendTLS",
            dependencies: [
                "MockBackendSupport", "MockBackendHTTP", "COpenSSL", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The mock application: every backend, the admin API, wired by `MockBackendApp`.
        .target(
            name: "MockBackend",
            dependencies: [
                "MockBackendSupport",
                "MockBackendHTTP",
                "MockBackendAPI",
                "ServerSentEvents",
                .product(name: "Logging", package: "swift-log"),
                // Renders mapping response templates (Handlebars compiled to Mustache).
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        // The client library: event source with reconnection, authenticator, polling.
        .target(
            name: "MockBackendClient",
            dependencies: [
                "MockBackendSupport", "ServerSentEvents", "MockBackendAPI",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // For test suites, this package's and its users': the server in-process on 127.0.0.1:0,
        // a typed admin client, waits on the admin feed, a test clock, a WebSocket transport for
        // the client's trackers where URLSession has none; re-exports what a test names
        // (Exports.swift).
        .target(
            name: "MockBackendTesting",
            dependencies: [
                "MockBackendSupport", "MockBackend", "MockBackendHTTP", "MockBackendAPI", "MockBackendClient",
                "ServerSentEvents",
            ]
        ),
        .executableTarget(
            name: "MockBackendCLI",
            dependencies: [
                "MockBackendSupport",
                "MockBackend",
                "MockBackendTLS",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Shared by the test targets (not a product): see Tests/TestSupport.
        .target(
            name: "TestSupport",
            dependencies: [
                "MockBackendSupport", "MockBackendHTTP", "ServerSentEvents", "MockBackend", "MockBackendTesting",
                "MockBackendTLS", "COpenSSL", .target(name: "CNghttp2", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "ServerSentEventsTests",
            dependencies: ["ServerSentEvents"]
        ),
        .testTarget(
            name: "MockBackendClientTests",
            dependencies: [
                "TestSupport", "MockBackendSupport", "MockBackendClient", "MockBackendTesting", "ServerSentEvents",
            ]
        ),
        .testTarget(
            name: "MockBackendHTTPTests",
            dependencies: ["TestSupport", "MockBackendSupport", "MockBackendHTTP", "MockBackendTesting"]
        ),
        .testTarget(
            name: "MockBackendTests",
            dependencies: ["TestSupport", "MockBackendSupport", "MockBackend", "MockBackendTesting"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MockBackendTLSTests",
            dependencies: ["TestSupport", "MockBackendSupport", "MockBackendTLS", "MockBackend", "MockBackendTesting"]
        ),
        .testTarget(
            name: "MockBackendTestingTests",
            dependencies: ["TestSupport", "MockBackendSupport", "MockBackendTesting"]
        ),
        .testTarget(
            name: "MockBackendCLITests",
            dependencies: ["TestSupport", "MockBackendSupport", "MockBackendCLI", "MockBackendTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
