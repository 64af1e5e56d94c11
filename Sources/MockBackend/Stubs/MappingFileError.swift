/// Why the mapping files could not be loaded: the file and the field.
public struct MappingFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var detail: String

    public init(detail: String) {
        self.detail = detail
    }

    public var description: String { detail }
}
