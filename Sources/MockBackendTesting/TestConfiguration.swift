import Foundation
import MockBackend

extension MockBackendConfiguration {
    /// A configuration for tests: the defaults, so the dashboard and `/openapi.yaml` are the
    /// copies built into `MockBackend`. It needs no files on disk, so it works from any
    /// working directory and in any test bundle, an iOS simulator or device included.
    public static func forTesting() -> MockBackendConfiguration {
        MockBackendConfiguration()
    }

    /// A configuration for tests that serves the live `Public/` and `openapi/openapi.yaml` of
    /// a checkout at `packageRoot` (`PackageRoot.path` for this package's own tests), as
    /// `--public-dir` and `--openapi-file` do: an edited file shows without a rebuild.
    public static func forTesting(liveFilesAt packageRoot: String) -> MockBackendConfiguration {
        MockBackendConfiguration(
            publicDirectory: packageRoot + "/Public", openAPIDocument: packageRoot + "/openapi/openapi.yaml")
    }
}

/// Where this package's sources are, derived from this file's compile-time path (`#filePath`).
///
/// Only meaningful where the sources are on disk: this package's own tests, on the machine
/// that built them. A test bundle on a device or in a simulator has no such folder; the
/// server needs none (`MockBackendConfiguration.forTesting()`).
package enum PackageRoot {
    package static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()
}
