/*
 * The floor for the SSE fan-out benchmark: the least a server can do per delivery on
 * this machine's loopback. One thread, epoll, one send() per subscriber per event, the
 * same wire format as mockbackend's streams (chunked `id: N\ndata: ...\n\n`), no
 * buffering (a subscriber whose socket is full is dropped and counted). Speaks the
 * Hummingbird peer's routes so that bench/sse/driver.py drives it unchanged:
 *
 *   GET /health   -> 200 {"status":"ok"}
 *   GET /sse      -> 200 text/event-stream, chunked, held open
 *   POST /publish {"data":"...","count":N} -> each event to every subscriber, then
 *                 200 {"id":"<last id>","delivered":<subscribers>}
 *
 *   floor_server PORT   (0 = any; prints "floor listening on http://127.0.0.1:PORT")
 *
 * A benchmark tool, not a server: requests must arrive whole in one read.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FDS 65536

static char is_subscriber[MAX_FDS];
static int subscribers[MAX_FDS];
static int subscriber_count;
static long next_id = 1;
static long dropped;

static void drop_subscriber(int fd) {
    for (int i = 0; i < subscriber_count; i++) {
        if (subscribers[i] == fd) {
            subscribers[i] = subscribers[--subscriber_count];
            break;
        }
    }
    is_subscriber[fd] = 0;
    close(fd);
}

static void reply(int fd, const char *body) {
    char out[512];
    int n = snprintf(out, sizeof out,
                     "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    if (send(fd, out, (size_t)n, MSG_NOSIGNAL) < 0) { /* the driver sees the missing reply */ }
}

/* The value of "key":"..." or "key":N in a flat JSON object, copied into out. */
static int json_field(const char *json, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(json, pattern);
    if (!at) return 0;
    at += strlen(pattern);
    while (*at == ' ') at++;
    int quoted = *at == '"';
    if (quoted) at++;
    size_t n = 0;
    while (at[n] && n + 1 < size && (quoted ? at[n] != '"' : (at[n] != ',' && at[n] != '}'))) n++;
    memcpy(out, at, n);
    out[n] = 0;
    return 1;
}

static void publish(int fd, const char *body) {
    char data[1024] = "", count_text[32] = "1";
    json_field(body, "data", data, sizeof data);
    json_field(body, "count", count_text, sizeof count_text);
    long count = atol(count_text);
    if (count < 1) count = 1;
    for (long e = 0; e < count; e++) {
        char event[1200], chunk[1300];
        int n = snprintf(event, sizeof event, "id: %ld\ndata: %s\n\n", next_id++, data);
        int m = snprintf(chunk, sizeof chunk, "%x\r\n%.*s\r\n", n, n, event);
        for (int i = 0; i < subscriber_count;) {
            int s = subscribers[i];
            if (send(s, chunk, (size_t)m, MSG_NOSIGNAL | MSG_DONTWAIT) != m) {
                dropped++;
                drop_subscriber(s);
                continue;
            }
            i++;
        }
    }
    char answer[128];
    snprintf(answer, sizeof answer, "{\"id\":\"%ld\",\"delivered\":%d}", next_id - 1, subscriber_count);
    reply(fd, answer);
}

static void handle(int epoll, int fd) {
    static char buffer[65536];
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    if (n <= 0) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
        if (is_subscriber[fd]) drop_subscriber(fd);
        else close(fd);
        return;
    }
    buffer[n] = 0;
    if (is_subscriber[fd]) return; /* a subscriber sends nothing more */
    if (strncmp(buffer, "GET /sse", 8) == 0) {
        const char *head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
                           "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
        if (send(fd, head, strlen(head), MSG_NOSIGNAL) < 0) return;
        is_subscriber[fd] = 1;
        subscribers[subscriber_count++] = fd;
    } else if (strncmp(buffer, "POST /publish", 13) == 0) {
        const char *body = strstr(buffer, "\r\n\r\n");
        publish(fd, body ? body + 4 : "");
    } else {
        reply(fd, "{\"status\":\"ok\"}");
    }
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(argc > 1 ? atoi(argv[1]) : 0)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 4096)) {
        perror("floor_server");
        return 1;
    }
    socklen_t length = sizeof address;
    getsockname(listener, (struct sockaddr *)&address, &length);
    printf("floor listening on http://127.0.0.1:%d\n", ntohs(address.sin_port));
    fflush(stdout);
    int epoll = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event ready[256];
    for (;;) {
        int n = epoll_wait(epoll, ready, 256, -1);
        for (int i = 0; i < n; i++) {
            int fd = ready[i].data.fd;
            if (fd != listener) {
                handle(epoll, fd);
                continue;
            }
            int client;
            while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                if (client >= MAX_FDS) {
                    close(client);
                    continue;
                }
                setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                struct epoll_event watch = {.events = EPOLLIN, .data.fd = client};
                epoll_ctl(epoll, EPOLL_CTL_ADD, client, &watch);
            }
        }
    }
}
