import COpenSSL

extension TLSIdentity {
    /// Days a generated certificate is valid. Apple platforms refuse server certificates
    /// valid for more than 825 days; one day less leaves room for the hour of back-dating.
    public static let selfSignedValidityDays = 824

    /// Makes a certificate for local development that iOS, Android and browsers accept
    /// once it is trusted: a P-256 key, SHA-256 signature, subject alternative names for
    /// `localhost`, `127.0.0.1` and `::1` (plus `extraNames`), extended key usage
    /// serverAuth, and at most 825 days of validity. It is its own issuer and a CA, so it
    /// can be installed as a trusted root (an iOS profile, an Android network security
    /// config) and `openssl verify -CAfile cert.pem cert.pem` accepts it.
    ///
    /// - Parameter extraNames: more DNS names or IP addresses for the certificate, e.g.
    ///   the address a phone on the same network uses.
    public static func selfSigned(extraNames: [String] = []) throws(TLSError) -> TLSIdentity {
        OpenSSLErrorQueue.clear()
        let key = try generateP256Key()
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw TLSError.openSSL("cannot allocate a certificate")
        }
        do {
            try fill(certificate, key: key, extraNames: extraNames)
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw error
        }
        return try TLSIdentity(certificates: [certificate], privateKey: key)
    }

    /// The names a generated certificate carries, as `subjectAltName` entries.
    static func subjectAltNames(extraNames: [String]) -> String {
        var entries = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"]
        for name in extraNames {
            let isAddress = name.contains(":") || name.allSatisfy { $0.isNumber || $0 == "." }
            let entry = (isAddress ? "IP:" : "DNS:") + name
            if !entries.contains(entry) { entries.append(entry) }
        }
        return entries.joined(separator: ",")
    }

    private static func generateP256Key() throws(TLSError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw TLSError.openSSL("cannot set up key generation")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else { throw TLSError.openSSL("cannot generate a P-256 key") }
        return key
    }

    private static func fill(_ certificate: OpaquePointer, key: OpaquePointer, extraNames: [String]) throws(TLSError) {
        guard X509_set_version(certificate, 2) == 1 else { throw TLSError.openSSL("cannot set the version") }
        try setRandomSerial(certificate)
        // An hour of back-dating absorbs a client clock that runs a little slow.
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), selfSignedValidityDays * 86_400) != nil
        else { throw TLSError.openSSL("cannot set the validity") }
        guard X509_set_pubkey(certificate, key) == 1 else { throw TLSError.openSSL("cannot set the public key") }
        guard let name = X509_get_subject_name(certificate) else { throw TLSError.openSSL("no subject name") }
        for (field, value) in [("O", "mockbackend development certificate"), ("CN", "localhost")] {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw TLSError.openSSL("cannot set the subject")
            }
        }
        guard X509_set_issuer_name(certificate, name) == 1 else { throw TLSError.openSSL("cannot set the issuer") }
        // The subject key identifier goes first: the authority key identifier copies it.
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,digitalSignature,keyCertSign"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_alt_name, subjectAltNames(extraNames: extraNames)),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        for (nid, value) in extensions {
            guard let item = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw TLSError.openSSL("cannot make the extension \(value)")
            }
            defer { X509_EXTENSION_free(item) }
            guard X509_add_ext(certificate, item, -1) == 1 else { throw TLSError.openSSL("cannot add \(value)") }
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSError.openSSL("cannot sign") }
    }

    /// 127 random bits: positive, and unique enough that a client never mistakes one
    /// run's certificate for another's.
    private static func setRandomSerial(_ certificate: OpaquePointer) throws(TLSError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw TLSError.openSSL("no random bytes") }
        bytes[0] &= 0x7F
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw TLSError.openSSL("cannot make the serial number")
        }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw TLSError.openSSL("cannot set the serial number")
        }
    }
}
