#if canImport(Security)
import Foundation
import Security

extension TrustedCertificate {
    /// Answers a server-trust challenge: `.useCredential` when the server's chain is valid
    /// with this certificate as its only anchor (the host name checked as usual),
    /// `.cancelAuthenticationChallenge` when it is not, and `.performDefaultHandling` for
    /// every other kind of challenge.
    public var challengeHandler: AuthenticationChallengeHandler {
        let der = der
        return { challenge in
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else { return (.performDefaultHandling, nil) }
            guard let certificate = SecCertificateCreateWithData(nil, der as CFData),
                SecTrustSetAnchorCertificates(trust, [certificate] as CFArray) == errSecSuccess,
                SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess,
                SecTrustEvaluateWithError(trust, nil)
            else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(trust: trust))
        }
    }
}
#endif
