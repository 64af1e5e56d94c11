// The system zlib (zlib1g-dev), with the macros Swift cannot call wrapped as functions.
#ifndef MOCKBACKEND_CZLIB_SHIM_H
#define MOCKBACKEND_CZLIB_SHIM_H

#include <zlib.h>

/// A deflate stream that writes the gzip format (window bits 15 + 16), memory level 8.
static inline int mockbackend_deflateInit_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// An inflate stream that reads the gzip format only (window bits 15 + 16).
static inline int mockbackend_inflateInit_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 16);
}

#endif
