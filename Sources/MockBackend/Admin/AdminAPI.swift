import MockBackendHTTP

/// Where the admin API lives: `/__admin` and every path under it, read as the router reads
/// paths (`RoutePrefix`): `//__admin/faults` and `/__admin/../x` are admin paths;
/// `/__administrator`, `/__admin%2Ffaults`, `/%5F_admin/faults` and `/x/../__admin/faults`
/// are not, and reach no admin route either.
///
/// This is the one answer to "is this an admin request?". The router gives these paths to
/// the admin group (`MockBackendApp.makeRouter`), whose routes are never journaled, faulted
/// or stubbed and, with `--admin-token`, ask for the token; any check outside the router
/// asks `contains(path:)`, which gives the router's answer.
package enum AdminAPI {
    /// The admin group's prefix.
    package static let prefix: RoutePrefix = "/__admin"

    /// Whether `path` (a request path, still percent-encoded) belongs to the admin API.
    /// Allocates nothing.
    package static func contains(path: String) -> Bool {
        prefix.contains(path: path)
    }
}
