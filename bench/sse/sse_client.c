// sse_client: holds many text/event-stream connections to one server and reports, per
// event id, when the last of its streams received it. Used by bench/sse/driver.py.
//
//   sse_client PORT PATH STREAMS [BATCH]
//
// Opens STREAMS connections to 127.0.0.1:PORT (BATCH at a time, each batch waiting for its
// response heads), sends "GET PATH HTTP/1.1", checks for a 200, then prints "READY n".
// Every received event id is found by scanning the body for "\nid: <digits>" (chunk
// framing puts "\r\n" before each event, the previous event's blank line "\n" otherwise).
// Receipt times are CLOCK_MONOTONIC nanoseconds, taken right after the read() that
// returned the bytes: comparable with Python's time.monotonic_ns() in other processes.
//
// Commands on stdin, one per line:
//   F            fan-out mode (default): print "GOT id count first_ns last_ns" once every
//                open stream has received that id
//   R            throughput mode: reset counters, print "OK"
//   E id         throughput mode: print "DONE id events first_ns last_ns" once id arrives
//   Q            close every stream and exit, printing "BYE events closed"
// A stream the server closes prints "CLOSED streams_left events_so_far".
// EOF on stdin counts as Q. The process also exits by itself after 900 s (alarm).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOTS (1u << 16) /* per-id bookkeeping, indexed by id modulo SLOTS */
#define HEAD_MAX 4096

typedef struct {
    int fd;
    int open;
    int head_done;
    int head_len;
    char *head;       /* response head, freed once complete */
    int match;        /* characters of "\nid: " matched so far */
    int in_id;        /* reading the digits of an id */
    uint64_t id;
} conn_t;

typedef struct {
    uint64_t id;
    uint32_t count;
    uint64_t first_ns, last_ns;
} slot_t;

static conn_t *conns;
static int nconns, nopen, closed_by_server;
static slot_t *slots;
static int throughput_mode;
static uint64_t tp_events, tp_first, tp_last, tp_wait_id, total_events;
static int tp_waiting;
static uint64_t max_id_seen;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "sse_client: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void check_tp_done(void) {
    if (tp_waiting && max_id_seen >= tp_wait_id) {
        printf("DONE %llu %llu %llu %llu\n", (unsigned long long)tp_wait_id, (unsigned long long)tp_events,
               (unsigned long long)tp_first, (unsigned long long)tp_last);
        fflush(stdout);
        tp_waiting = 0;
    }
}

static void got_id(uint64_t id, uint64_t t) {
    total_events++;
    if (id > max_id_seen) max_id_seen = id;
    if (throughput_mode) {
        if (tp_events == 0) tp_first = t;
        tp_events++;
        tp_last = t;
        return;
    }
    slot_t *s = &slots[id % SLOTS];
    if (s->id != id) {
        s->id = id;
        s->count = 0;
        s->first_ns = t;
    }
    s->count++;
    s->last_ns = t;
    if ((int)s->count == nopen) {
        printf("GOT %llu %u %llu %llu\n", (unsigned long long)id, s->count, (unsigned long long)s->first_ns,
               (unsigned long long)s->last_ns);
        fflush(stdout);
    }
}

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

static void close_conn(conn_t *c, int epfd) {
    if (!c->open) return;
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->open = 0;
    nopen--;
    free(c->head);
    c->head = NULL;
}

/* Returns 1 if the head completed with this call. */
static int on_readable(conn_t *c, int epfd, char *buf, size_t bufsize) {
    int completed = 0;
    for (;;) {
        ssize_t n = read(c->fd, buf, bufsize);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return completed;
            if (errno == EINTR) continue;
            n = 0;
        }
        if (n == 0) {
            closed_by_server++;
            fprintf(stderr, "sse_client: stream on fd %d closed by the server\n", c->fd);
            close_conn(c, epfd);
            printf("CLOSED %d %llu\n", nopen, (unsigned long long)total_events);
            fflush(stdout);
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
                if (c->head_len >= HEAD_MAX) { fprintf(stderr, "sse_client: head too long\n"); exit(3); }
                continue;
            }
            int head_size = (int)(end - c->head) + 4;
            if (strncmp(c->head, "HTTP/1.1 200", 12) != 0) {
                fprintf(stderr, "sse_client: unexpected response: %.*s\n", head_size, c->head);
                exit(3);
            }
            c->head_done = 1;
            completed = 1;
            c->match = 1; /* the body starts a line */
            free(c->head);
            c->head = NULL;
            body = buf + (head_size - old);
            blen = n - (head_size - old);
        }
        if (blen > 0) scan(c, body, blen, t);
        if ((size_t)n < bufsize) return completed; /* a short read: the socket is drained */
    }
}

static void handle_command(char *line, int epfd) {
    if (line[0] == 'Q') {
        for (int i = 0; i < nconns; i++) close_conn(&conns[i], epfd);
        printf("BYE %llu %d\n", (unsigned long long)total_events, closed_by_server);
        fflush(stdout);
        exit(0);
    } else if (line[0] == 'R') {
        throughput_mode = 1;
        tp_events = tp_first = tp_last = 0;
        printf("OK\n");
        fflush(stdout);
    } else if (line[0] == 'E') {
        tp_wait_id = strtoull(line + 1, NULL, 10);
        tp_waiting = 1;
        check_tp_done();
    } else if (line[0] == 'F') {
        throughput_mode = 0;
        printf("OK\n");
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: sse_client PORT PATH STREAMS [BATCH]\n");
        return 64;
    }
    int port = atoi(argv[1]);
    const char *path = argv[2];
    nconns = atoi(argv[3]);
    int batch = argc > 4 ? atoi(argv[4]) : 200;
    signal(SIGPIPE, SIG_IGN);
    alarm(900);

    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    conns = calloc((size_t)nconns, sizeof(conn_t));
    slots = calloc(SLOTS, sizeof(slot_t));
    size_t bufsize = 256 * 1024;
    char *buf = malloc(bufsize);
    if (!conns || !slots || !buf) die("calloc");

    int epfd = epoll_create1(0);
    if (epfd < 0) die("epoll_create1");
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
    epoll_ctl(epfd, EPOLL_CTL_ADD, 0, &ev);

    char request[1024];
    int reqlen = snprintf(request, sizeof request,
                          "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n"
                          "User-Agent: sse-bench\r\n\r\n",
                          path, port);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    struct epoll_event events[1024];
    char line[256];
    int linelen = 0;
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
                heads += on_readable(&conns[events[k].data.u64], epfd, buf, bufsize);
            }
            if (now_ns() - start > 120ull * 1000000000ull) {
                fprintf(stderr, "sse_client: only %d of %d response heads after 120 s\n", heads, nconns);
                return 4;
            }
        }
    }
    printf("READY %d\n", nopen);
    fflush(stdout);

    for (;;) {
        int n = epoll_wait(epfd, events, 1024, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int k = 0; k < n; k++) {
            if (events[k].data.u64 == UINT64_MAX) {
                for (;;) {
                    ssize_t r = read(0, line + linelen, sizeof line - 1 - (size_t)linelen);
                    if (r == 0) handle_command("Q", epfd);
                    if (r < 0) break;
                    linelen += (int)r;
                    line[linelen] = 0;
                    char *nl;
                    while ((nl = strchr(line, '\n'))) {
                        *nl = 0;
                        handle_command(line, epfd);
                        memmove(line, nl + 1, strlen(nl + 1) + 1);
                        linelen = (int)strlen(line);
                    }
                    if (linelen >= (int)sizeof line - 1) linelen = 0;
                }
                continue;
            }
            on_readable(&conns[events[k].data.u64], epfd, buf, bufsize);
        }
        if (throughput_mode) check_tp_done();
    }
}
