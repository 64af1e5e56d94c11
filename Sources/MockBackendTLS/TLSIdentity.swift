import COpenSSL

/// A certificate chain and its private key, as the TLS listener presents them.
///
/// Immutable once made; OpenSSL only reads the objects after that, so sharing an
/// identity between threads is safe.
public final class TLSIdentity: @unchecked Sendable {
    /// `X509*`, the leaf first, then any intermediates.
    let certificates: [OpaquePointer]
    /// `EVP_PKEY*`.
    let privateKey: OpaquePointer
    /// The chain in PEM, leaf first: what `GET /__admin/tls/cert.pem` serves and
    /// `--tls-cert-out` writes. It holds no private key.
    public let certificatePEM: String
    /// SHA-256 of the leaf certificate's DER bytes, as colon-separated upper-case hex
    /// (the form iOS Settings and `openssl x509 -fingerprint -sha256` show).
    public let sha256Fingerprint: String

    /// Takes ownership of the objects.
    init(certificates: [OpaquePointer], privateKey: OpaquePointer) throws(TLSError) {
        precondition(!certificates.isEmpty, "an identity needs a certificate")
        self.certificates = certificates
        self.privateKey = privateKey
        certificatePEM = try Self.pem(certificates)
        sha256Fingerprint = try Self.fingerprint(certificates[0])
    }

    deinit {
        for certificate in certificates { X509_free(certificate) }
        EVP_PKEY_free(privateKey)
    }

    /// Reads a PEM certificate chain (leaf first) and a PEM private key, and checks that
    /// the key belongs to the leaf. Encrypted keys are refused rather than prompted for.
    public static func load(certificateFile: String, keyFile: String) throws(TLSError) -> TLSIdentity {
        OpenSSLErrorQueue.clear()
        let chain = try readCertificates(certificateFile)
        let key: OpaquePointer
        do {
            key = try readPrivateKey(keyFile)
        } catch {
            for certificate in chain { X509_free(certificate) }
            throw error
        }
        guard X509_check_private_key(chain[0], key) == 1 else {
            OpenSSLErrorQueue.clear()
            for certificate in chain { X509_free(certificate) }
            EVP_PKEY_free(key)
            throw TLSError("the key in \(keyFile) does not match the certificate in \(certificateFile)")
        }
        return try TLSIdentity(certificates: chain, privateKey: key)
    }

    private static func readCertificates(_ path: String) throws(TLSError) -> [OpaquePointer] {
        guard let file = BIO_new_file(path, "r") else {
            throw TLSError.openSSL("cannot read the certificate file \(path)")
        }
        defer { BIO_free(file) }
        var chain: [OpaquePointer] = []
        while let certificate = PEM_read_bio_X509(file, nil, nil, nil) { chain.append(certificate) }
        // The read past the last certificate always fails ("no start line").
        OpenSSLErrorQueue.clear()
        guard !chain.isEmpty else { throw TLSError("\(path) holds no PEM certificate") }
        return chain
    }

    private static func readPrivateKey(_ path: String) throws(TLSError) -> OpaquePointer {
        guard let file = BIO_new_file(path, "r") else {
            throw TLSError.openSSL("cannot read the key file \(path)")
        }
        defer { BIO_free(file) }
        // A password callback that gives none: without it OpenSSL would prompt on the terminal.
        guard let key = PEM_read_bio_PrivateKey(file, nil, { _, _, _, _ in 0 }, nil) else {
            throw TLSError.openSSL("\(path) holds no unencrypted PEM private key")
        }
        return key
    }

    private static func pem(_ certificates: [OpaquePointer]) throws(TLSError) -> String {
        guard let memory = BIO_new(BIO_s_mem()) else { throw TLSError.openSSL("cannot allocate a buffer") }
        defer { BIO_free(memory) }
        for certificate in certificates where PEM_write_bio_X509(memory, certificate) != 1 {
            throw TLSError.openSSL("cannot write the certificate as PEM")
        }
        let length = Int(BIO_ctrl_pending(memory))
        var bytes = [UInt8](repeating: 0, count: length)
        let read = BIO_read(memory, &bytes, Int32(length))
        return String(decoding: bytes.prefix(max(0, Int(read))), as: UTF8.self)
    }

    private static func fingerprint(_ certificate: OpaquePointer) throws(TLSError) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else {
            throw TLSError.openSSL("cannot hash the certificate")
        }
        let hex = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { String([hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]]) }
            .joined(separator: ":")
    }
}
