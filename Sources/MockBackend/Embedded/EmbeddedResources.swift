import MockBackendHTTP

/// The dashboard (`Public/`) and the OpenAPI document (`openapi/openapi.yaml`) compiled into
/// this module, so a server serves them with no files on disk: the executable started from
/// any folder, an in-process server in any test bundle, an iOS simulator or device included.
///
/// The data is in the `*.generated.swift` files beside this one, written by
/// `scripts/embed-resources.py`; CI checks they match a fresh run. `--public-dir` and
/// `--openapi-file` (`MockBackendConfiguration.publicDirectory`, `.openAPIDocument`) serve
/// live files from disk instead, for editing them.
package enum EmbeddedResources {
    /// The built-in dashboard, decoded once per process.
    package static let dashboard = EmbeddedFileHandler(files: publicFiles)

    /// The OpenAPI document as a server with `--admin-token` serves it: byte for byte.
    package static var openAPIDocument: EmbeddedFile { openAPIFile }

    /// The OpenAPI document as a server without `--admin-token` serves it: the admin
    /// operations declared open (`OpenAdminSecurity`). Made once per process.
    package static let openAPIDocumentWithOpenAdmin: [UInt8] = Array(
        OpenAdminSecurity.apply(to: openAPIFile.text).utf8)
}
