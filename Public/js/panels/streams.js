// Open streams and their subscribers; a stream's connections can be dropped.

import { adminPost } from "../admin-api.js";
import { actionButton, badge, clockTime, el, table } from "../dom.js";

/** The admin feed itself is left out: this page is always one of its subscribers. */
export function renderStreams(container, streams, context) {
  const rows = streams
    .filter((stream) => stream.name !== "admin/events")
    .map((stream) => {
      const subscribers = stream.subscribers.map((subscriber) =>
        el("li", {
          text: `#${subscriber.connection} since ${clockTime(subscriber.connectedAt)}, Last-Event-ID ${subscriber.lastEventId ?? "none"}, ${subscriber.deliveredCount} delivered`,
          title: subscriber.connectedAt,
        }),
      );
      const path = stream.name.split("/").map(encodeURIComponent).join("/");
      return el(
        "tr",
        { dataset: { stream: stream.name } },
        el("td", { className: "mono", text: stream.name }),
        el("td", {}, stream.finished ? badge("finished", "muted") : badge("open", "ok")),
        el("td", { className: "number", text: stream.lastEventId ?? "–" }),
        el("td", {}, subscribers.length ? el("ul", { className: "plain" }, subscribers) : el("span", { className: "muted", text: "none" })),
        el(
          "td",
          { className: "actions" },
          subscribers.length > 0 &&
            actionButton("Drop", "disconnect", () =>
              context.act(`drop ${stream.name}`, () => adminPost(`/__admin/streams/${path}/disconnect`, {})),
            ),
          subscribers.length > 0 &&
            actionButton("End", "end-gracefully", () =>
              context.act(`end ${stream.name}`, () =>
                adminPost(`/__admin/streams/${path}/disconnect`, { graceful: true }),
              ),
            ),
        ),
      );
    });
  container.replaceChildren(
    table(["Stream", "State", "Last id", "Subscribers", ""], rows, "No streams besides this page's feed."),
  );
}
