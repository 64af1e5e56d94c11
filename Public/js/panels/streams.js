// Open streams and their subscribers; a stream's connections can be dropped.
//
// A subscriber is an SSE response or a WebSocket (the V1 progress socket of an import job,
// `GET /ws/progress`); the admin disconnect ends either kind: Drop without a goodbye (FIN,
// the client sees 1006 on a WebSocket), End gracefully (the chunked terminator on SSE, a
// close frame 1001 on a WebSocket).

import { adminPost } from "../admin-api.js";
import { actionButton, badge, clockTime, el, table } from "../dom.js";

/** What the panel calls each protocol of `GET /__admin/streams`. */
const PROTOCOL_LABELS = { sse: "SSE", websocket: "WebSocket" };

function subscriberItem(subscriber) {
  const protocol = subscriber.protocol || "sse";
  const label = PROTOCOL_LABELS[protocol] ?? protocol;
  const since = `#${subscriber.connection} since ${clockTime(subscriber.connectedAt)}`;
  // A WebSocket has no Last-Event-ID: V1 has no resume, a reconnect gets the whole history.
  const details =
    protocol === "websocket"
      ? `${since}, ${subscriber.deliveredCount} message(s) delivered`
      : `${since}, Last-Event-ID ${subscriber.lastEventId ?? "none"}, ${subscriber.deliveredCount} delivered`;
  return el(
    "li",
    { title: subscriber.connectedAt, dataset: { connection: subscriber.connection, protocol } },
    protocol === "websocket" ? badge(label, "info protocol") : el("span", { className: "protocol muted", text: label }),
    " ",
    details,
  );
}

/** The admin feed itself is left out: this page is always one of its subscribers. */
export function renderStreams(container, streams, context) {
  const rows = streams
    .filter((stream) => stream.name !== "admin/events")
    .map((stream) => {
      const subscribers = stream.subscribers.map(subscriberItem);
      const path = stream.name.split("/").map(encodeURIComponent).join("/");
      return el(
        "tr",
        { dataset: { stream: stream.name } },
        el(
          "td",
          { className: "mono" },
          stream.name,
          // A proxied stream's events come from the upstream; pushes are injected among them.
          stream.name.startsWith("proxy/") && " ",
          stream.name.startsWith("proxy/") && badge("proxied", "info proxied"),
        ),
        el("td", {}, stream.finished ? badge("finished", "muted") : badge("open", "ok")),
        el("td", { className: "number", text: stream.lastEventId ?? "–" }),
        el("td", {}, subscribers.length ? el("ul", { className: "plain" }, subscribers) : el("span", { className: "muted", text: "none" })),
        el(
          "td",
          { className: "actions" },
          subscribers.length > 0 &&
            withTitle(
              actionButton("Drop", "disconnect", () =>
                context.act(`drop ${stream.name}`, () => adminPost(`/__admin/streams/${path}/disconnect`, {})),
              ),
              "End every connection as a network failure would (FIN; a WebSocket sees 1006)",
            ),
          subscribers.length > 0 &&
            withTitle(
              actionButton("End", "end-gracefully", () =>
                context.act(`end ${stream.name}`, () =>
                  adminPost(`/__admin/streams/${path}/disconnect`, { graceful: true }),
                ),
              ),
              "End every connection properly (SSE: the end of the body; WebSocket: close 1001)",
            ),
        ),
      );
    });
  container.replaceChildren(
    table(["Stream", "State", "Last id", "Subscribers", ""], rows, "No streams besides this page's feed."),
  );
}

function withTitle(node, title) {
  node.title = title;
  return node;
}
