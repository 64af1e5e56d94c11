// The request journal (newest first) and the live feed list.

import { badge, clockTime, el, table } from "../dom.js";
import { describeFeedEvent } from "../live-feed.js";

function statusTone(status) {
  if (status >= 500) return "bad";
  if (status >= 400) return "warn";
  if (status >= 300) return "muted";
  return "ok";
}

/** A proxied request: what the upstream answered (or that it did not), and how fast. */
function proxiedBadge(entry) {
  const upstream = entry.upstreamStatus ?? "no answer";
  const latency = entry.upstreamLatencyMs === undefined ? "" : ` in ${entry.upstreamLatencyMs} ms`;
  const label = badge("proxied", "info proxied");
  label.title = `Upstream: ${upstream}${latency}`;
  return label;
}

/** Each entry's target opens to its headers and body excerpt. */
export function renderJournal(container, entries) {
  const rows = entries.map((entry) => {
    const headers = Object.entries(entry.headers || {})
      .map(([name, value]) => `${name}: ${value}`)
      .join("\n");
    const details = el(
      "details",
      {},
      el("summary", { className: "mono", text: entry.target }),
      el("pre", { text: headers + (entry.bodyExcerpt ? `\n\n${entry.bodyExcerpt}` : "") }),
    );
    return el(
      "tr",
      { dataset: { requestId: entry.id } },
      el("td", { text: clockTime(entry.receivedAt), title: entry.receivedAt }),
      el("td", { text: entry.method }),
      el("td", {}, details),
      el(
        "td",
        {},
        badge(String(entry.status), statusTone(entry.status)),
        entry.proxied && " ",
        entry.proxied && proxiedBadge(entry),
      ),
      el("td", { className: "number", text: `${entry.durationMs} ms` }),
      el("td", { className: "mono", text: entry.fault || "" }),
    );
  });
  container.replaceChildren(table(["Time", "Method", "Target", "Status", "Took", "Fault"], rows, "No requests yet."));
}

/** A tint for each kind of feed event (`AdminFeedEvent.Kind`). */
const KIND_TONES = {
  request: "muted",
  login: "ok",
  "session.expired": "bad",
  "session.terminated": "warn",
  "fault.fired": "bad",
  "stream.connected": "info",
  "stream.disconnected": "muted",
};

/** A list item for one feed event, newest on top; the list keeps the last `limit`. */
export function prependFeedItem(list, event, limit) {
  const item = el(
    "li",
    { dataset: { eventType: event.kind, eventId: event.id } },
    el("span", { className: "time", text: clockTime(event.data?.ts), title: event.data?.ts }),
    badge(event.kind, KIND_TONES[event.kind]),
    el("span", { className: "text", text: describeFeedEvent(event.kind, event.data) }),
  );
  list.prepend(item);
  while (list.children.length > limit) list.lastElementChild.remove();
}
