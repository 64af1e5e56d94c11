import MockBackend

extension RunningServer {
    /// A typed client of this server's admin API.
    public var admin: AdminClient {
        AdminClient(baseURL: baseURL, adminToken: app.configuration.adminToken.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The calls of this server's public API that tests set up with: logins, CSV uploads.
    public var api: TestAPIClient { TestAPIClient(baseURL: baseURL) }
}
