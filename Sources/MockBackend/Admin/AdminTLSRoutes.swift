import MockBackendHTTP

/// `GET /__admin/tls/cert.pem`: the HTTPS listener's certificate chain, for a client to
/// trust (an iOS profile, an Android network security config, `curl --cacert`).
struct AdminTLSRoutes {
    /// Nil when no HTTPS listener runs.
    let certificatePEM: String?

    func register(on admin: inout RouterGroup) {
        let body = certificatePEM.map { Array($0.utf8) }
        admin.get("/tls/cert.pem") { _ in
            guard let body else {
                throw ProblemDetails(
                    status: 404, code: "TLS_DISABLED", detail: "No HTTPS listener runs: start with --tls-port.")
            }
            // The type iOS Safari offers to install as a profile when the URL is opened on a device.
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "application/x-x509-ca-cert"], body: .bytes(body))
        }
    }
}
