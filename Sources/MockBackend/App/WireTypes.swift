// The wire types of the backends are `MockBackendAPI`'s: the server answers and publishes
// exactly the types the client decodes (`openapi/examples/` holds both to
// `openapi/openapi.yaml`). This module re-exports them, so its own files and its users
// name `ImportStatus`, `WorkflowEvent` or `JSONValue` once, without a second import, and
// without a typealias that a file importing both modules would find twice.
@_exported import MockBackendAPI
