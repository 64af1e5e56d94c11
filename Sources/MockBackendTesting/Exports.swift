// One `import MockBackendTesting` is enough in a test file: this module re-exports what a
// test of a client against the mock names —
// - `MockBackend`: `MockBackendApp` (`RunningServer.app`), `MockBackendConfiguration`, the
//   typed `Fault` and `FaultRule.Match`, `RequestMatcher`, `DisconnectMode`, the journal and
//   stream snapshots the admin client returns;
// - `MockBackendAPI`: the wire types (`PlayerLoginResponse`, `ImportStatus`, `JSONValue`, …);
// - `ServerSentEvents`: `ServerSentEvent`, the codec;
// - `MockBackendClient`: `EventSource`, `UserInfoStream`, `JobTracker`, `StatusPoller`.
// A convenience of a testing module: app code imports the modules it uses one by one.
@_exported import MockBackend
@_exported import MockBackendAPI
@_exported import MockBackendClient
@_exported import ServerSentEvents
