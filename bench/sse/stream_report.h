// stream_report.h: the line protocol every load client of bench/sse/driver.py speaks on
// stdin/stdout, and the per-id bookkeeping behind it. Included (through stream_client.h,
// or directly by h2_client.c) by exactly one .c file, which first defines
//
//   CLIENT_NAME   "sse_client", "ws_client" or "h2_client", for messages
//
// and then defines the two hooks declared below. The includer keeps `nopen` equal to the
// number of its open streams: an id is reported once that many streams have it.
//
// Each event's number (an SSE id, a WebSocket message's "seq") is handed to got_id() with
// the CLOCK_MONOTONIC time, in nanoseconds, taken right after the read() that brought it:
// comparable with Python's time.monotonic_ns() in other processes.
//
// Commands on stdin, one per line:
//   F            fan-out mode (default): print "GOT id count first_ns last_ns" once every
//                open stream has received that id
//   R            throughput mode: reset counters, print "OK"
//   E id         throughput mode: print "DONE id events first_ns last_ns" once id arrives
//   N count      throughput mode: print "DONE count events first_ns last_ns" once count
//                events have arrived since R (for streams whose events all carry one number)
//   S            print "STATUS events_since_R events_in_all"
//   K            keep-alive: send the protocol's keep-alive on every stream (if it has one),
//                print "OK"
//   Q            close every stream and exit, printing "BYE events closed"
// A stream the server closes prints "CLOSED streams_left events_so_far" (report_closed).
// EOF on stdin counts as Q. The process also exits by itself after 900 s (alarm).
#ifndef STREAM_REPORT_H
#define STREAM_REPORT_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define SLOTS (1u << 16) /* per-id bookkeeping, indexed by id modulo SLOTS */

typedef struct {
    uint64_t id;
    uint32_t count;
    uint64_t first_ns, last_ns;
} slot_t;

static int nopen, closed_by_server;
static slot_t *slots;
static int throughput_mode;
static uint64_t tp_events, tp_first, tp_last, tp_wait_id, tp_wait_count, total_events;
static int tp_waiting; /* 1: for an id (E), 2: for a count (N) */
static uint64_t max_id_seen;

/* --- the includer's hooks ------------------------------------------------------------- */
/* Q: closes every stream it holds (the process exits right after). */
static void report_quit(void);
/* K: sends the protocol's keep-alive on every open stream. */
static void report_keepalive(void);

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, CLIENT_NAME ": %s: %s\n", what, strerror(errno));
    exit(2);
}

/* What every client does first: no SIGPIPE, the 900 s limit, the open-file limit raised to
 * the hard one, the id slots, stdin non-blocking. */
static void report_setup(void) {
    signal(SIGPIPE, SIG_IGN);
    alarm(900);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    slots = calloc(SLOTS, sizeof(slot_t));
    if (!slots) die("calloc");
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
}

static void check_tp_done(void) {
    if ((tp_waiting == 1 && max_id_seen >= tp_wait_id) || (tp_waiting == 2 && tp_events >= tp_wait_count)) {
        printf("DONE %llu %llu %llu %llu\n", (unsigned long long)(tp_waiting == 1 ? tp_wait_id : tp_wait_count),
               (unsigned long long)tp_events, (unsigned long long)tp_first, (unsigned long long)tp_last);
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

/* A stream the server ended, already taken out of `nopen`: counted and reported. */
static void report_closed(void) {
    closed_by_server++;
    printf("CLOSED %d %llu\n", nopen, (unsigned long long)total_events);
    fflush(stdout);
}

static void handle_command(char *line) {
    if (line[0] == 'Q') {
        report_quit();
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
    } else if (line[0] == 'N') {
        tp_wait_count = strtoull(line + 1, NULL, 10);
        tp_waiting = 2;
        check_tp_done();
    } else if (line[0] == 'S') {
        printf("STATUS %llu %llu\n", (unsigned long long)tp_events, (unsigned long long)total_events);
        fflush(stdout);
    } else if (line[0] == 'K') {
        report_keepalive();
        printf("OK\n");
        fflush(stdout);
    } else if (line[0] == 'F') {
        throughput_mode = 0;
        printf("OK\n");
        fflush(stdout);
    }
}

/* Stdin is readable: runs every complete command line that has come. */
static void read_commands(void) {
    static char line[256];
    static int linelen;
    for (;;) {
        ssize_t r = read(0, line + linelen, sizeof line - 1 - (size_t)linelen);
        if (r == 0) handle_command("Q");
        if (r < 0) break;
        linelen += (int)r;
        line[linelen] = 0;
        char *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = 0;
            handle_command(line);
            memmove(line, nl + 1, strlen(nl + 1) + 1);
            linelen = (int)strlen(line);
        }
        if (linelen >= (int)sizeof line - 1) linelen = 0;
    }
}

#endif
