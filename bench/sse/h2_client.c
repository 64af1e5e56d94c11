// h2_client: holds many text/event-stream responses over a few HTTP/2 connections with
// prior knowledge (h2c, RFC 9113 §3.3) to one server, and reports, per event id, when the
// last of its streams received it. Used by bench/sse/driver.py in place of sse_client.
//
//   STREAMS_PER_CONNECTION=100 h2_client PORT PATH STREAMS [BATCH]
//
// Opens ceil(STREAMS / STREAMS_PER_CONNECTION) connections to 127.0.0.1:PORT (the streams
// spread evenly over them; BATCH streams' worth of connections at a time, each batch waiting
// for its response heads), and on each sends GET PATH as that many concurrent streams
// (":scheme http", "accept: text/event-stream"). Each response must be ":status 200". Frames,
// HPACK and flow control are nghttp2's client session: the client announces windows of
// 6 MiB per stream and 15 MiB per connection (what Chrome announces) and nghttp2 sends
// WINDOW_UPDATE as the DATA is read, so windows stay open. In each stream's DATA it
// parses the event stream line by line: an event is counted when the blank line that ends
// it ("\n\n") arrives, with the number of its "id:" line, at the CLOCK_MONOTONIC time taken
// right after the read() that brought that blank line.
//
// A stream the server resets or ends, or a connection it closes, prints "CLOSED" per
// stream (with the reason on stderr); a GOAWAY is noted on stderr. The line protocol with
// the driver (GOT, DONE, READY, CLOSED, BYE; commands F, R, E, N, S, K, Q) is
// stream_report.h's, shared with sse_client.c and ws_client.c.
#define _GNU_SOURCE
#define CLIENT_NAME "h2_client"
#include "stream_report.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define STREAM_WINDOW (6 * 1024 * 1024)
#define CONNECTION_WINDOW (15 * 1024 * 1024)
#define STDIN_KEY UINT64_MAX

typedef struct connection connection_t;

typedef struct {
    connection_t *conn;
    int32_t id;
    int status;    /* the response's :status */
    int head_done; /* the response's HEADERS came */
    int open;
    /* the event-stream parser */
    int line_len;  /* bytes of the current line so far ('\r' not counted) */
    int id_line;   /* 0: undecided, 1: an "id:" line, -1: another line */
    int id_digits; /* digits read on the id line */
    uint64_t id_value;
    int has_id;    /* the event being read has an id */
    uint64_t event_id;
} stream_t;

struct connection {
    int fd;
    int open;
    int out_armed; /* EPOLLOUT is armed: nghttp2 has frames the socket did not take */
    int first, count; /* its streams: streams[first .. first + count) */
    nghttp2_session *session;
};

static connection_t *conns;
static stream_t *streams;
static int nconns, nstreams, epfd, quitting;
static uint64_t read_ns; /* when the bytes being parsed were read */

/* --- the event stream ------------------------------------------------------------------- */
static void line_ended(stream_t *s, uint64_t t) {
    if (s->line_len == 0) { /* a blank line: the event is complete */
        if (s->has_id) got_id(s->event_id, t);
        s->has_id = 0;
    } else if (s->id_line == 1 && s->id_digits > 0) {
        s->event_id = s->id_value;
        s->has_id = 1;
    }
    s->line_len = 0;
    s->id_line = 0;
    s->id_digits = 0;
    s->id_value = 0;
}

static void scan(stream_t *s, const uint8_t *p, size_t n, uint64_t t) {
    static const char prefix[] = "id:";
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = p[i];
        if (ch == '\n') {
            line_ended(s, t);
            continue;
        }
        if (ch == '\r') continue;
        int at = s->line_len++;
        if (s->id_line == 0) {
            if (at < 3 && ch == (uint8_t)prefix[at]) {
                if (at == 2) s->id_line = 1;
            } else {
                s->id_line = -1;
            }
        } else if (s->id_line == 1) {
            if (ch >= '0' && ch <= '9') {
                s->id_value = s->id_value * 10 + (uint64_t)(ch - '0');
                s->id_digits++;
            } else if (!(ch == ' ' && at == 3)) {
                s->id_line = -1; /* not a number: not counted */
            }
        }
    }
}

/* --- nghttp2's callbacks ---------------------------------------------------------------- */
static ssize_t on_send(nghttp2_session *session, const uint8_t *data, size_t length, int flags, void *user) {
    (void)session;
    (void)flags;
    connection_t *c = user;
    ssize_t n = write(c->fd, data, length);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return NGHTTP2_ERR_WOULDBLOCK;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    return n;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user) {
    (void)flags;
    (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_RESPONSE) return 0;
    stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (s && namelen == 7 && memcmp(name, ":status", 7) == 0) s->status = atoi((const char *)value);
    (void)valuelen;
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
    connection_t *c = user;
    if (frame->hd.type == NGHTTP2_GOAWAY) {
        fprintf(stderr, CLIENT_NAME ": GOAWAY on fd %d: code %u, last stream %d\n", c->fd,
                frame->goaway.error_code, frame->goaway.last_stream_id);
        return 0;
    }
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_RESPONSE) return 0;
    stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s || s->head_done) return 0;
    if (s->status != 200) {
        fprintf(stderr, CLIENT_NAME ": unexpected response: :status %d on stream %d\n", s->status, s->id);
        exit(3);
    }
    s->head_done = 1;
    return 0;
}

static int on_data(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t len,
                   void *user) {
    (void)flags;
    (void)user;
    stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (s && s->open) scan(s, data, len, read_ns);
    return 0;
}

/* The server ended one stream: counted and reported (not when this client is closing). */
static void stream_lost(stream_t *s, const char *how, uint32_t code) {
    if (!s->open) return;
    s->open = 0;
    nopen--;
    if (quitting) return;
    fprintf(stderr, CLIENT_NAME ": stream %d on fd %d closed by the server (%s, code %u)\n", s->id, s->conn->fd,
            how, code);
    report_closed();
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t code, void *user) {
    (void)user;
    stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (s) stream_lost(s, code ? "RST_STREAM" : "END_STREAM", code);
    return 0;
}

/* --- connections ------------------------------------------------------------------------- */
static void close_connection(connection_t *c, const char *how) {
    if (!c->open) return;
    for (int i = c->first; i < c->first + c->count; i++) stream_lost(&streams[i], how, 0);
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->open = 0;
}

/* Hands nghttp2's pending frames (SETTINGS, requests, WINDOW_UPDATE, acknowledgements) to
 * the socket; waits for EPOLLOUT while the socket does not take them all. */
static void flush(connection_t *c) {
    if (!c->open) return;
    if (nghttp2_session_send(c->session) != 0) {
        close_connection(c, "send failed");
        return;
    }
    int want = nghttp2_session_want_write(c->session) != 0;
    if (want != c->out_armed) {
        struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0), .data.u64 = (uint64_t)(c - conns)};
        epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
        c->out_armed = want;
    }
}

static void on_readable(connection_t *c, uint8_t *buf, size_t bufsize) {
    while (c->open) {
        ssize_t n = read(c->fd, buf, bufsize);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            if (errno == EINTR) continue;
            close_connection(c, strerror(errno));
            return;
        }
        if (n == 0) {
            close_connection(c, "end of connection");
            return;
        }
        read_ns = now_ns();
        ssize_t used = nghttp2_session_mem_recv(c->session, buf, (size_t)n);
        if (used < 0) {
            fprintf(stderr, CLIENT_NAME ": fd %d: %s\n", c->fd, nghttp2_strerror((int)used));
            close_connection(c, "protocol error");
            return;
        }
        if ((size_t)n < bufsize) break; /* a short read: the socket is drained */
    }
    flush(c);
}

static nghttp2_session_callbacks *callbacks(void) {
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb) != 0) die("nghttp2_session_callbacks_new");
    nghttp2_session_callbacks_set_send_callback(cb, on_send);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    return cb;
}

#define NV(name, value)                                                                                              \
    { (uint8_t *)(name), (uint8_t *)(value), strlen(name), strlen(value), NGHTTP2_NV_FLAG_NONE }

/* Connects c and submits its SETTINGS, the connection window and its requests. */
static void open_connection(connection_t *c, nghttp2_session_callbacks *cb, const struct sockaddr_in *addr,
                            const char *path, const char *authority) {
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0) die("socket");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (const struct sockaddr *)addr, sizeof *addr) != 0) die("connect");
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    c->open = 1;
    if (nghttp2_session_client_new(&c->session, cb, c) != 0) die("nghttp2_session_client_new");
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW},
    };
    if (nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, 2) != 0) die("nghttp2_submit_settings");
    if (nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, CONNECTION_WINDOW) != 0)
        die("nghttp2_session_set_local_window_size");
    nghttp2_nv headers[] = {
        NV(":method", "GET"), NV(":scheme", "http"), NV(":authority", authority), NV(":path", path),
        NV("accept", "text/event-stream"), NV("user-agent", "sse-bench"),
    };
    for (int i = c->first; i < c->first + c->count; i++) {
        stream_t *s = &streams[i];
        s->conn = c;
        s->id = nghttp2_submit_request(c->session, NULL, headers, sizeof headers / sizeof headers[0], NULL, s);
        if (s->id < 0) {
            fprintf(stderr, CLIENT_NAME ": nghttp2_submit_request: %s\n", nghttp2_strerror(s->id));
            exit(2);
        }
        s->open = 1;
        nopen++;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)(c - conns)};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll_ctl");
    flush(c);
}

static void report_quit(void) {
    quitting = 1;
    for (int i = 0; i < nconns; i++) close_connection(&conns[i], "closing");
}

static void report_keepalive(void) {} /* an event stream has none */

static int heads_done(int upto) {
    int n = 0;
    for (int i = 0; i < upto; i++) n += streams[i].head_done;
    return n;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: STREAMS_PER_CONNECTION=N " CLIENT_NAME " PORT PATH STREAMS [BATCH]\n");
        return 64;
    }
    int port = atoi(argv[1]);
    const char *path = argv[2];
    nstreams = atoi(argv[3]);
    int batch = argc > 4 ? atoi(argv[4]) : 200;
    const char *per = getenv("STREAMS_PER_CONNECTION");
    int per_connection = per && atoi(per) > 0 ? atoi(per) : 100;
    report_setup();

    nconns = (nstreams + per_connection - 1) / per_connection;
    conns = calloc((size_t)nconns, sizeof(connection_t));
    streams = calloc((size_t)nstreams, sizeof(stream_t));
    size_t bufsize = 256 * 1024;
    uint8_t *buf = malloc(bufsize);
    if (!conns || !streams || !buf) die("calloc");
    for (int i = 0, first = 0; i < nconns; i++) {
        conns[i].first = first;
        conns[i].count = nstreams / nconns + (i < nstreams % nconns ? 1 : 0);
        first += conns[i].count;
    }

    epfd = epoll_create1(0);
    if (epfd < 0) die("epoll_create1");
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = STDIN_KEY};
    epoll_ctl(epfd, EPOLL_CTL_ADD, 0, &ev);
    nghttp2_session_callbacks *cb = callbacks();
    char authority[64];
    snprintf(authority, sizeof authority, "127.0.0.1:%d", port);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    struct epoll_event events[1024];
    uint64_t start = now_ns();
    int per_batch = batch / per_connection > 0 ? batch / per_connection : 1;
    for (int base = 0; base < nconns; base += per_batch) {
        int end = base + per_batch < nconns ? base + per_batch : nconns;
        for (int i = base; i < end; i++) open_connection(&conns[i], cb, &addr, path, authority);
        int upto = conns[end - 1].first + conns[end - 1].count;
        while (heads_done(upto) < upto) {
            int n = epoll_wait(epfd, events, 1024, 1000);
            if (n < 0 && errno != EINTR) die("epoll_wait");
            for (int k = 0; k < n; k++) {
                if (events[k].data.u64 == STDIN_KEY) continue; /* stdin waits until READY */
                connection_t *c = &conns[events[k].data.u64];
                if (events[k].events & EPOLLOUT) flush(c);
                if (events[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c, buf, bufsize);
            }
            if (nopen < upto) {
                fprintf(stderr, CLIENT_NAME ": the server ended %d streams before their response heads\n",
                        upto - nopen);
                return 4;
            }
            if (now_ns() - start > 120ull * 1000000000ull) {
                fprintf(stderr, CLIENT_NAME ": only %d of %d response heads after 120 s\n", heads_done(upto),
                        nstreams);
                return 4;
            }
        }
    }
    nghttp2_session_callbacks_del(cb);
    printf("READY %d\n", nopen);
    fflush(stdout);

    for (;;) {
        int n = epoll_wait(epfd, events, 1024, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int k = 0; k < n; k++) {
            if (events[k].data.u64 == STDIN_KEY) {
                read_commands();
                continue;
            }
            connection_t *c = &conns[events[k].data.u64];
            if (events[k].events & EPOLLOUT) flush(c);
            if (events[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c, buf, bufsize);
        }
        if (throughput_mode) check_tp_done();
    }
}
