// The system nghttp2 (libnghttp2-dev): HTTP/2 frames, HPACK and flow control, driven
// sans-IO (nghttp2_session_mem_recv / nghttp2_session_mem_send) by the server's own loop.
#ifndef MOCKBACKEND_CNGHTTP2_SHIM_H
#define MOCKBACKEND_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

#endif
