// Proxy mode's session overlay: every session token seen on proxied requests (redacted),
// each with an Expire button (its requests then get the upstream's last 401/403 without
// going upstream, its open proxied streams end) and a Lift button once expired.

import { adminDelete, adminPost, segment } from "../admin-api.js";
import { actionButton, badge, clockTime, el, table } from "../dom.js";

export function renderProxySessions(container, sessions, context) {
  const rows = sessions.map((session) => {
    const expired = session.state === "expired";
    return el(
      "tr",
      { dataset: { proxySession: session.id, state: session.state } },
      el("td", { className: "mono", text: session.id }),
      el("td", { className: "mono", text: session.token }),
      el("td", {}, badge(session.state, expired ? "bad" : "ok")),
      el("td", { className: "number", text: String(session.requests) }),
      el("td", { className: "number", text: String(session.openStreams) }),
      el("td", { text: clockTime(session.lastSeenAt), title: session.lastSeenAt }),
      el(
        "td",
        { className: "actions" },
        !expired &&
          actionButton("Expire", "expire-proxy-session", () =>
            context.act(`expire token ${session.id}`, () =>
              adminPost(`/__admin/proxy/sessions/${segment(session.id)}/expire`, {}),
            ),
          ),
        expired &&
          actionButton("Lift", "lift-proxy-session", () =>
            context.act(`lift token ${session.id}`, () => adminDelete(`/__admin/proxy/sessions/${segment(session.id)}`)),
          ),
      ),
    );
  });
  container.replaceChildren(
    table(
      ["Id", "Token", "State", "Requests", "Streams", "Last seen", ""],
      rows,
      "No session tokens seen: in proxy mode (--proxy) the tokens of proxied requests show here.",
    ),
  );
}
