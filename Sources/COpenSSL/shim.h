// The system OpenSSL (libssl-dev), with the macros Swift cannot call wrapped as functions.
#ifndef MOCKBACKEND_COPENSSL_SHIM_H
#define MOCKBACKEND_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// Partial writes, a write buffer that may move between retries, and buffers released
/// while a connection is idle (SSL_CTX_set_mode is a macro).
static inline long mockbackend_SSL_CTX_set_server_modes(SSL_CTX *context) {
    return SSL_CTX_set_mode(
        context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
}

/// Read ahead: one read() takes as many records as the socket holds, instead of a read
/// for each record header and another for its body (SSL_CTX_set_read_ahead is a macro).
static inline void mockbackend_SSL_CTX_enable_read_ahead(SSL_CTX *context) {
    SSL_CTX_set_read_ahead(context, 1);
}

/// No server-side session cache: TLS 1.3 resumes through stateless tickets, and the cache's
/// periodic sweep walks every stored session (SSL_CTX_set_session_cache_mode is a macro).
static inline void mockbackend_SSL_CTX_disable_session_cache(SSL_CTX *context) {
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
}

/// TLS 1.2 at least (SSL_CTX_set_min_proto_version is a macro).
static inline int mockbackend_SSL_CTX_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/// No renegotiation, and a peer that closes without close_notify reads as end of stream
/// (the SSL_OP_* constants are macros).
static inline void mockbackend_SSL_CTX_set_server_options(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
}

/// Adds an intermediate certificate sent after the leaf (SSL_CTX_add1_chain_cert is a macro).
static inline int mockbackend_SSL_CTX_add1_chain_cert(SSL_CTX *context, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(context, certificate);
}

/// A client context: TLS 1.2 at least, partial writes, no session cache (the macros again).
static inline void mockbackend_SSL_CTX_set_client_modes(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
}

/// Server Name Indication for a client connection (SSL_set_tlsext_host_name is a macro).
static inline int mockbackend_SSL_set_server_name(SSL *connection, const char *name) {
    return (int)SSL_set_tlsext_host_name(connection, name);
}

#endif
