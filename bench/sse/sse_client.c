// sse_client: holds many text/event-stream connections to one server and reports, per
// event id, when the last of its streams received it. Used by bench/sse/driver.py.
//
//   sse_client PORT PATH STREAMS [BATCH]
//
// Sends "GET PATH HTTP/1.1" on each connection and checks for a 200. Every received event
// id is found by scanning the body for "\nid: <digits>" (chunk framing puts "\r\n" before
// each event, the previous event's blank line "\n" otherwise). The connections, the epoll
// loop and the line protocol with the driver (GOT, DONE, READY, CLOSED, BYE; commands F, R,
// E, N, K, Q) are in stream_client.h, shared with ws_client.c.
#define _GNU_SOURCE
#define CLIENT_NAME "sse_client"
#define PROTOCOL_FIELDS                                                                                               \
    int match; /* characters of "\nid: " matched so far */                                                          \
    int in_id; /* reading the digits of an id */                                                                      \
    uint64_t id;
#include "stream_client.h"

/* Scans body bytes for "\nid: <digits>\n". */
static void scan(conn_t *c, const char *p, ssize_t n, uint64_t t) {
    static const char pat[] = "\nid: ";
    for (ssize_t i = 0; i < n; i++) {
        char ch = p[i];
        if (c->in_id) {
            if (ch >= '0' && ch <= '9') {
                c->id = c->id * 10 + (uint64_t)(ch - '0');
                continue;
            }
            c->in_id = 0;
            got_id(c->id, t);
        }
        if (ch == pat[c->match]) {
            c->match++;
            if (c->match == 5) {
                c->match = 0;
                c->in_id = 1;
                c->id = 0;
            }
        } else {
            c->match = (ch == '\n') ? 1 : 0;
        }
    }
}

static int client_request(char *buf, size_t size, const char *path, int port) {
    return snprintf(buf, size,
                    "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n"
                    "User-Agent: sse-bench\r\n\r\n",
                    path, port);
}

static int client_head_ok(conn_t *c, const char *head, int head_size) {
    (void)c;
    return head_size >= 12 && strncmp(head, "HTTP/1.1 200", 12) == 0;
}

static void client_head_done(conn_t *c) { c->match = 1; /* the body starts a line */ }

static int client_body(conn_t *c, const char *p, ssize_t n, uint64_t t) {
    scan(c, p, n, t);
    return 0;
}

static void client_keepalive(conn_t *c) { (void)c; }

static void client_goodbye(conn_t *c) { (void)c; }

int main(int argc, char **argv) { return run_client(argc, argv, 0); }
