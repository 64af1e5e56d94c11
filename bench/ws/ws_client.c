// ws_client: holds many WebSocket connections (RFC 6455) to one server and reports, per
// event number, when the last of its connections received it. Used by bench/sse/driver.py
// for mockbackend's V1 progress socket (GET /ws/progress?jobId=...).
//
//   ws_client PORT PATH STREAMS [BATCH]
//
// Each connection sends the opening handshake (Upgrade: websocket, Connection: Upgrade,
// Sec-WebSocket-Key, Sec-WebSocket-Version: 13) and checks for 101 with the matching
// Sec-WebSocket-Accept. Every connection uses the key of RFC 6455's example, whose accept
// value is known, so the check needs no SHA-1 here. Then it reads the server's frames
// (unmasked; 2-, 4- or 10-byte headers), and in each text message finds the event's
// number as "seq":<digits>; a message without one (the job's history: "started", ...)
// is read and not counted. A ping is answered with a masked pong carrying its payload; a
// close frame is echoed (masked) and the connection reported closed. With no pings from
// the server (--ws-ping-interval 0) the server still drops a connection it has heard
// nothing from for 60 s, so every connection sends an unsolicited empty pong (RFC 6455
// §5.5.3, a one-way heartbeat) on the driver's "K" and every 25 s of its own.
//
// The connections, the epoll loop and the line protocol with the driver (GOT, DONE, READY,
// CLOSED, BYE; commands F, R, E, N, K, Q) are in ../sse/stream_client.h, shared with
// sse_client.c.
#define _GNU_SOURCE
#define CLIENT_NAME "ws_client"
#define PROTOCOL_FIELDS                                                                                               \
    int in_payload;         /* 0: reading a frame header, 1: its payload */                                          \
    int hdr_len, hdr_need;  /* header bytes read so far, and the header's size once known */                          \
    uint8_t hdr[14];                                                                                                  \
    uint8_t opcode, fin;                                                                                              \
    uint64_t remaining;     /* payload bytes of the frame still to read */                                            \
    int in_text;            /* inside a text message (across continuation frames) */                                  \
    int match;              /* characters of "\"seq\":" matched so far */                                            \
    int seq_state;          /* 0: looking, 1: after "seq": (digits follow), 2: done for this message */                 \
    int seq_digits;                                                                                                   \
    uint64_t seq;                                                                                                     \
    uint8_t ctl[125];       /* a control frame's payload */                                                           \
    int ctl_len;
#include "../sse/stream_client.h"

#define KEY "dGhlIHNhbXBsZSBub25jZQ=="
#define ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

static uint64_t mask_state = 0x9e3779b97f4a7c15ull;

static uint32_t next_mask(void) {
    mask_state ^= mask_state << 13;
    mask_state ^= mask_state >> 7;
    mask_state ^= mask_state << 17;
    return (uint32_t)mask_state;
}

static void fatal(conn_t *c, const char *what) {
    fprintf(stderr, CLIENT_NAME ": fd %d: %s\n", c->fd, what);
    exit(3);
}

/* One masked frame from the client (payload at most 125 bytes). */
static void send_frame(conn_t *c, uint8_t opcode, const uint8_t *payload, int len) {
    uint8_t frame[2 + 4 + 125];
    uint32_t m = next_mask();
    uint8_t mask[4] = {(uint8_t)m, (uint8_t)(m >> 8), (uint8_t)(m >> 16), (uint8_t)(m >> 24)};
    frame[0] = (uint8_t)(0x80 | opcode);
    frame[1] = (uint8_t)(0x80 | len);
    memcpy(frame + 2, mask, 4);
    for (int i = 0; i < len; i++) frame[6 + i] = payload[i] ^ mask[i & 3];
    ssize_t w = send(c->fd, frame, (size_t)(6 + len), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w != 6 + len) fprintf(stderr, CLIENT_NAME ": fd %d: control frame not sent whole (%zd)\n", c->fd, w);
}

static int client_request(char *buf, size_t size, const char *path, int port) {
    return snprintf(buf, size,
                    "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: " KEY "\r\nSec-WebSocket-Version: 13\r\nUser-Agent: ws-bench\r\n\r\n",
                    path, port);
}

static int client_head_ok(conn_t *c, const char *head, int head_size) {
    (void)c;
    return head_size >= 12 && strncmp(head, "HTTP/1.1 101", 12) == 0 &&
           memmem(head, (size_t)head_size, ACCEPT "\r\n", sizeof ACCEPT + 1) != NULL;
}

static void client_head_done(conn_t *c) {
    c->in_payload = 0;
    c->hdr_len = 0;
    c->hdr_need = 2;
}

/* The text of a message, a piece at a time: finds the first "seq":<digits>. */
static void scan_text(conn_t *c, const uint8_t *p, uint64_t n) {
    static const char pat[] = "\"seq\":";
    for (uint64_t i = 0; i < n && c->seq_state != 2; i++) {
        uint8_t ch = p[i];
        if (c->seq_state == 1) {
            if (ch >= '0' && ch <= '9') {
                c->seq = c->seq * 10 + (uint64_t)(ch - '0');
                c->seq_digits++;
                continue;
            }
            if (ch == ' ' && c->seq_digits == 0) continue;
            c->seq_state = c->seq_digits ? 2 : 0;
            if (c->seq_state == 2) break;
        }
        if (ch == (uint8_t)pat[c->match]) {
            if (++c->match == 6) {
                c->match = 0;
                c->seq_state = 1;
                c->seq = 0;
                c->seq_digits = 0;
            }
        } else {
            c->match = (ch == '"') ? 1 : 0;
        }
    }
}

static void start_message(conn_t *c) {
    c->in_text = 1;
    c->match = 0;
    c->seq_state = 0;
    c->seq_digits = 0;
    c->seq = 0;
}

/* A whole frame has been read. Returns -1 once the connection is closed. */
static int frame_end(conn_t *c, uint64_t t) {
    if (c->opcode & 0x8) {
        if (c->opcode == 0x9) {
            send_frame(c, 0xA, c->ctl, c->ctl_len); /* pong with the ping's payload */
        } else if (c->opcode == 0x8) {
            char how[64];
            int code = c->ctl_len >= 2 ? (c->ctl[0] << 8 | c->ctl[1]) : 1005;
            snprintf(how, sizeof how, "close frame %d", code);
            send_frame(c, 0x8, c->ctl, c->ctl_len >= 2 ? 2 : 0);
            closed_by_peer(c, how);
            return -1;
        }
        return 0; /* a pong: nothing to do */
    }
    if (c->fin) {
        if (c->in_text && (c->seq_state == 2 || (c->seq_state == 1 && c->seq_digits))) got_id(c->seq, t);
        c->in_text = 0;
    }
    return 0;
}

static int client_body(conn_t *c, const char *data, ssize_t len, uint64_t t) {
    const uint8_t *p = (const uint8_t *)data;
    uint64_t n = (uint64_t)len;
    while (n > 0) {
        if (!c->in_payload) {
            while (n > 0 && c->hdr_len < c->hdr_need) {
                c->hdr[c->hdr_len++] = *p++;
                n--;
                if (c->hdr_len == 2) {
                    if (c->hdr[1] & 0x80) fatal(c, "a masked frame from the server");
                    int len7 = c->hdr[1] & 0x7f;
                    c->hdr_need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0);
                }
            }
            if (c->hdr_len < c->hdr_need) return 0;
            uint8_t b0 = c->hdr[0];
            if (b0 & 0x70) fatal(c, "reserved bits set in a frame from the server");
            c->fin = b0 >> 7;
            c->opcode = b0 & 0x0f;
            int len7 = c->hdr[1] & 0x7f;
            uint64_t plen = (uint64_t)len7;
            if (len7 == 126) plen = (uint64_t)c->hdr[2] << 8 | c->hdr[3];
            if (len7 == 127) {
                plen = 0;
                for (int i = 2; i < 10; i++) plen = plen << 8 | c->hdr[i];
            }
            if (c->opcode & 0x8) {
                if (plen > 125 || !c->fin) fatal(c, "a control frame over 125 bytes or fragmented");
                if (c->opcode != 0x8 && c->opcode != 0x9 && c->opcode != 0xA) fatal(c, "an unknown control opcode");
                c->ctl_len = 0;
            } else if (c->opcode == 0x1) {
                if (c->in_text) fatal(c, "a new text message inside a fragmented one");
                start_message(c);
            } else if (c->opcode == 0x2) {
                c->in_text = 0;
            } else if (c->opcode != 0x0) {
                fatal(c, "an unknown data opcode");
            }
            c->remaining = plen;
            c->hdr_len = 0;
            c->hdr_need = 2;
            if (plen == 0) {
                if (frame_end(c, t) < 0) return -1;
                continue;
            }
            c->in_payload = 1;
        }
        uint64_t take = n < c->remaining ? n : c->remaining;
        if (c->opcode & 0x8) {
            memcpy(c->ctl + c->ctl_len, p, (size_t)take);
            c->ctl_len += (int)take;
        } else if (c->in_text) {
            scan_text(c, p, take);
        }
        p += take;
        n -= take;
        c->remaining -= take;
        if (c->remaining == 0) {
            c->in_payload = 0;
            if (frame_end(c, t) < 0) return -1;
        }
    }
    return 0;
}

static void client_keepalive(conn_t *c) { send_frame(c, 0xA, NULL, 0); }

static void client_goodbye(conn_t *c) {
    static const uint8_t normal[2] = {0x03, 0xe8}; /* 1000 */
    send_frame(c, 0x8, normal, 2);
}

int main(int argc, char **argv) {
    mask_state ^= (uint64_t)getpid() << 32 ^ now_ns();
    return run_client(argc, argv, 25ull * 1000000000ull);
}
