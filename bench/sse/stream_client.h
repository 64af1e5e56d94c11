// stream_client.h: what sse_client.c and ws_client.c share: one connection per stream,
// the epoll loop, and (from stream_report.h) the per-id bookkeeping and the line protocol
// on stdin/stdout that bench/sse/driver.py speaks. Included by exactly one .c file, which
// first defines
//
//   CLIENT_NAME       "sse_client" or "ws_client", for messages
//   PROTOCOL_FIELDS   the per-connection parser state of its protocol (struct members)
//
// and then defines the hooks declared below.
//
// Usage of both clients:
//
//   CLIENT PORT PATH STREAMS [BATCH]
//
// Opens STREAMS connections to 127.0.0.1:PORT (BATCH at a time, each batch waiting for its
// response heads), sends the request for PATH, checks the head, then prints "READY n".
// The commands and the lines printed are stream_report.h's.
#ifndef STREAM_CLIENT_H
#define STREAM_CLIENT_H

#include "stream_report.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define HEAD_MAX 4096

typedef struct {
    int fd;
    int open;
    int head_done;
    int head_len;
    char *head; /* response head, freed once complete */
    PROTOCOL_FIELDS
} conn_t;

static conn_t *conns;
static int nconns, epfd;

/* --- the protocol's hooks, defined by the including file ----------------------------- */
/* Writes the request for PATH into buf; returns its length. */
static int client_request(char *buf, size_t size, const char *path, int port);
/* Whether a complete response head (head_size bytes, "\r\n\r\n" included) is the one expected. */
static int client_head_ok(conn_t *c, const char *head, int head_size);
/* Called once the head is complete, before any body byte. */
static void client_head_done(conn_t *c);
/* Body bytes read at time t. Returns 0, or -1 once the connection has been closed. */
static int client_body(conn_t *c, const char *p, ssize_t n, uint64_t t);
/* Sends the protocol's keep-alive on c (nothing for SSE). */
static void client_keepalive(conn_t *c);
/* Before exiting on Q: anything to send before the descriptor closes. */
static void client_goodbye(conn_t *c);

static void close_conn(conn_t *c) {
    if (!c->open) return;
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->open = 0;
    nopen--;
    free(c->head);
    c->head = NULL;
}

/* The server ended the stream (EOF, a reset, or a close frame). */
static void closed_by_peer(conn_t *c, const char *how) {
    fprintf(stderr, CLIENT_NAME ": stream on fd %d closed by the server (%s)\n", c->fd, how);
    close_conn(c);
    report_closed();
}

/* Returns 1 if the head completed with this call. */
static int on_readable(conn_t *c, char *buf, size_t bufsize) {
    int completed = 0;
    for (;;) {
        ssize_t n = read(c->fd, buf, bufsize);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return completed;
            if (errno == EINTR) continue;
            n = 0;
        }
        if (n == 0) {
            closed_by_peer(c, "end of stream");
            return completed;
        }
        uint64_t t = now_ns();
        const char *body = buf;
        ssize_t blen = n;
        if (!c->head_done) {
            int take = (int)n;
            if (c->head_len + take > HEAD_MAX) take = HEAD_MAX - c->head_len;
            memcpy(c->head + c->head_len, buf, (size_t)take);
            int old = c->head_len;
            c->head_len += take;
            char *end = memmem(c->head, (size_t)c->head_len, "\r\n\r\n", 4);
            if (!end) {
                if (c->head_len >= HEAD_MAX) { fprintf(stderr, CLIENT_NAME ": head too long\n"); exit(3); }
                continue;
            }
            int head_size = (int)(end - c->head) + 4;
            if (!client_head_ok(c, c->head, head_size)) {
                fprintf(stderr, CLIENT_NAME ": unexpected response: %.*s\n", head_size, c->head);
                exit(3);
            }
            c->head_done = 1;
            completed = 1;
            client_head_done(c);
            free(c->head);
            c->head = NULL;
            body = buf + (head_size - old);
            blen = n - (head_size - old);
        }
        if (blen > 0 && client_body(c, body, blen, t) < 0) return completed;
        if ((size_t)n < bufsize) return completed; /* a short read: the socket is drained */
    }
}

static uint64_t last_keepalive_ns;

static void keepalive_all(void) {
    for (int i = 0; i < nconns; i++)
        if (conns[i].open && conns[i].head_done) client_keepalive(&conns[i]);
    last_keepalive_ns = now_ns();
}

static void report_quit(void) {
    for (int i = 0; i < nconns; i++) {
        if (conns[i].open && conns[i].head_done) client_goodbye(&conns[i]);
        close_conn(&conns[i]);
    }
}

static void report_keepalive(void) { keepalive_all(); }

/* keepalive_every_ns: 0 for none; else client_keepalive runs on every stream when that long
 * has passed since the last time (or since READY). */
static int run_client(int argc, char **argv, uint64_t keepalive_every_ns) {
    if (argc < 4) {
        fprintf(stderr, "usage: " CLIENT_NAME " PORT PATH STREAMS [BATCH]\n");
        return 64;
    }
    int port = atoi(argv[1]);
    const char *path = argv[2];
    nconns = atoi(argv[3]);
    int batch = argc > 4 ? atoi(argv[4]) : 200;
    report_setup();

    conns = calloc((size_t)nconns, sizeof(conn_t));
    size_t bufsize = 256 * 1024;
    char *buf = malloc(bufsize);
    if (!conns || !buf) die("calloc");

    epfd = epoll_create1(0);
    if (epfd < 0) die("epoll_create1");
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
    epoll_ctl(epfd, EPOLL_CTL_ADD, 0, &ev);

    char request[1024];
    int reqlen = client_request(request, sizeof request, path, port);
    if (reqlen <= 0 || reqlen >= (int)sizeof request) { fprintf(stderr, CLIENT_NAME ": path too long\n"); return 64; }
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    struct epoll_event events[1024];
    int heads = 0;
    uint64_t start = now_ns();
    for (int base = 0; base < nconns; base += batch) {
        int end = base + batch < nconns ? base + batch : nconns;
        for (int i = base; i < end; i++) {
            conn_t *c = &conns[i];
            c->fd = socket(AF_INET, SOCK_STREAM, 0);
            if (c->fd < 0) die("socket");
            int one = 1;
            setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("connect");
            if (write(c->fd, request, (size_t)reqlen) != reqlen) die("write");
            fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
            c->open = 1;
            c->head = malloc(HEAD_MAX);
            nopen++;
            struct epoll_event cev = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
            if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &cev) != 0) die("epoll_ctl");
        }
        while (heads < end) {
            int n = epoll_wait(epfd, events, 1024, 1000);
            if (n < 0 && errno != EINTR) die("epoll_wait");
            for (int k = 0; k < n; k++) {
                if (events[k].data.u64 == UINT64_MAX) continue; /* stdin waits until READY */
                heads += on_readable(&conns[events[k].data.u64], buf, bufsize);
            }
            if (now_ns() - start > 120ull * 1000000000ull) {
                fprintf(stderr, CLIENT_NAME ": only %d of %d response heads after 120 s\n", heads, nconns);
                return 4;
            }
        }
    }
    printf("READY %d\n", nopen);
    fflush(stdout);
    last_keepalive_ns = now_ns();

    for (;;) {
        int timeout = keepalive_every_ns ? 1000 : -1;
        int n = epoll_wait(epfd, events, 1024, timeout);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int k = 0; k < n; k++) {
            if (events[k].data.u64 == UINT64_MAX) {
                read_commands();
                continue;
            }
            on_readable(&conns[events[k].data.u64], buf, bufsize);
        }
        if (throughput_mode) check_tp_done();
        if (keepalive_every_ns && now_ns() - last_keepalive_ns > keepalive_every_ns) keepalive_all();
    }
}

#endif
