// swift-tools-version: 6.1
// A client team's first test against mockbackend: this package depends on it by path, as
// an app's test target would by URL, and imports only MockBackendTesting.
import PackageDescription

let package = Package(
    name: "FirstConsumerTest",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "mockbackend", path: "../..")
    ],
    targets: [
        .testTarget(
            name: "FirstConsumerTests",
            dependencies: [.product(name: "MockBackendTesting", package: "mockbackend")]
        )
    ],
    swiftLanguageModes: [.v6]
)
