// The live feed, `GET /__admin/events`, through the browser's own EventSource.
//
// EventSource reconnects by itself (resending Last-Event-ID) after a dropped connection.
// It gives up for good when an answer is not a 200 event stream — a 401 when the admin
// token is missing or wrong, say — and then this module opens a new one after a pause,
// resuming after the last id it saw with `?lastEventId=` so nothing arrives twice.

import { feedURL } from "./admin-api.js";

/**
 * Every kind of event the feed carries (its `event:` field): `AdminFeedEvent.Kind` in
 * Swift, whose fields `describeFeedEvent` reads (`DashboardContractTests` holds the two together).
 */
export const FEED_KINDS = [
  "request",
  "login",
  "session.expired",
  "session.terminated",
  "fault.fired",
  "stream.connected",
  "stream.disconnected",
];

const REOPEN_DELAY_MS = 3000;

export class LiveFeed {
  /**
   * `onEvent({kind, id, data})` for each event; `onState(state)` with `connecting`,
   * `live` or `down`; `onGaveUp()` when the browser closed the source for good (so the
   * caller can check whether a token is needed) — the feed reopens itself afterwards
   * unless `stop()` was called.
   */
  constructor({ onEvent, onState, onGaveUp }) {
    this.onEvent = onEvent;
    this.onState = onState;
    this.onGaveUp = onGaveUp;
    this.source = null;
    this.lastEventId = null;
    this.reopenTimer = null;
  }

  start() {
    this.stop();
    this.onState("connecting");
    const source = new EventSource(feedURL(this.lastEventId));
    this.source = source;
    source.addEventListener("open", () => this.onState("live"));
    source.addEventListener("error", () => {
      if (source !== this.source) return;
      if (source.readyState === EventSource.CLOSED) {
        this.onState("down");
        this.source = null;
        this.onGaveUp();
        this.reopenTimer = setTimeout(() => this.start(), REOPEN_DELAY_MS);
      } else {
        this.onState("connecting");
      }
    });
    for (const kind of FEED_KINDS) {
      source.addEventListener(kind, (message) => this.deliver(kind, message));
    }
  }

  stop() {
    clearTimeout(this.reopenTimer);
    this.reopenTimer = null;
    if (this.source) this.source.close();
    this.source = null;
  }

  deliver(kind, message) {
    if (message.lastEventId) this.lastEventId = message.lastEventId;
    let data;
    try {
      data = JSON.parse(message.data);
    } catch {
      data = { text: message.data };
    }
    this.onEvent({ kind, id: message.lastEventId, data });
  }
}

/** One line of text saying what a feed event is about. */
export function describeFeedEvent(kind, data) {
  const d = data || {};
  switch (kind) {
    case "request":
      return `${d.method} ${d.target} → ${d.status} (${d.durationMs} ms)${d.fault ? `, fault ${d.fault}` : ""}`;
    case "login":
      return `${d.api} login: user ${d.userId}, session ${d.sessionId}`;
    case "session.expired":
      return `session ${d.sessionId} of user ${d.userId} expired: ${d.reason} (${d.code}), ${d.streamsEnded} stream(s) ended`;
    case "session.terminated":
      return `session ${d.sessionId} of user ${d.userId} terminated: ${d.reason}, ${d.streamsEnded} stream(s) ended`;
    case "fault.fired":
      return `fault ${d.fault} (${d.kind}) hit ${d.method} ${d.target}`;
    case "stream.connected":
      // A WebSocket (the V1 progress socket) has no Last-Event-ID: it gets the whole history.
      if (d.protocol === "websocket") {
        return `${d.stream}: WebSocket connection ${d.connection} opened by ${d.client ?? "?"}`;
      }
      return (
        `${d.stream}: ${d.protocol === "sse" ? "SSE " : ""}connection ${d.connection} opened by ${d.client ?? "?"}, ` +
        `Last-Event-ID ${d.lastEventId ?? "none"}`
      );
    case "stream.disconnected":
      return `${d.stream}: connection ${d.connection} ended (${d.reason}), ${d.delivered} event(s) delivered`;
    default:
      return JSON.stringify(d);
  }
}
