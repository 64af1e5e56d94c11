/// What reading a mapping depends on beyond the mapping: the server's flags and where its
/// body files are.
package struct StubParseOptions: Sendable, Equatable {
    /// Every response is a template (`--global-response-templating`).
    package var globalTemplating = false
    /// Where `bodyFileName` names files: the `__files` directory of a WireMock root,
    /// beside the `--mappings` directory (or inside it); nil where there is none.
    package var bodyFilesDirectory: String?

    package init(globalTemplating: Bool = false, bodyFilesDirectory: String? = nil) {
        self.globalTemplating = globalTemplating
        self.bodyFilesDirectory = bodyFilesDirectory
    }
}
