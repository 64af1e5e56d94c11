// Sessions (expire, kick) and users (push a balance update).

import { adminPost, segment } from "../admin-api.js";
import { actionButton, badge, clockTime, el, shortId, table } from "../dom.js";

const STATE_TONES = { active: "ok", expired: "bad", terminated: "warn", loggedOut: "muted" };

/** Sessions, newest first: live ones can be expired (reason Expired, 1) or kicked (Kicked, 3). */
export function renderSessions(container, sessions, context) {
  const rows = [...sessions]
    .sort((a, b) => String(b.loginTime).localeCompare(String(a.loginTime)))
    .map((session) => {
      const live = session.state === "active";
      const end = (reason, code) => () =>
        context.act(`${reason} session ${shortId(session.sessionId)}`, () =>
          adminPost(`/__admin/sessions/${segment(session.sessionId)}/expire`, { reason, code }),
        );
      return el(
        "tr",
        { dataset: { sessionId: session.sessionId, state: session.state } },
        el("td", { className: "mono", text: session.sessionId }),
        el("td", { text: session.userId }),
        el("td", {}, badge(session.reason ? `${session.state}: ${session.reason}` : session.state, STATE_TONES[session.state])),
        el("td", { text: clockTime(session.loginTime), title: session.loginTime }),
        el(
          "td",
          { className: "actions" },
          live && actionButton("Expire", "expire", end("Expired", 1)),
          live && actionButton("Kick", "kick", end("Kicked", 3), "danger"),
        ),
      );
    });
  container.replaceChildren(
    table(["Session", "User", "State", "Login", ""], rows, "No sessions yet: log in through the player API."),
  );
}

/** Users with their balances, and a form per user to post an amount (it emits the balance update). */
export function renderUsers(container, users, context) {
  const rows = users.map((user) => {
    const amount = el("input", {
      className: "amount",
      attrs: { type: "number", step: "0.01", value: "-10", "aria-label": `Amount for ${user.username}` },
    });
    const wallet = el(
      "select",
      { attrs: { "aria-label": `Wallet of ${user.username}` } },
      el("option", { text: "Real", attrs: { value: "Real" } }),
      el("option", { text: "Bonus", attrs: { value: "Bonus" } }),
    );
    const push = actionButton("Push balance", "balance", () =>
      context.act(`balance update for ${user.userId}`, () =>
        adminPost(`/__admin/users/${segment(user.userId)}/balance`, {
          amount: Number(amount.value),
          wallet: wallet.value,
        }),
      ),
    );
    return el(
      "tr",
      { dataset: { userId: user.userId } },
      el("td", { text: user.userId }),
      el("td", { text: user.username }),
      el("td", { className: "number", text: `${formatMoney(user.realBalance)} ${user.currency}` }),
      el("td", { className: "number", text: formatMoney(user.bonusBalance) }),
      el("td", { className: "number", text: user.tokens }),
      el("td", { className: "actions" }, amount, wallet, push),
    );
  });
  container.replaceChildren(table(["User", "Name", "Real", "Bonus", "Tokens", ""], rows, "No users."));
}

function formatMoney(value) {
  return typeof value === "number" ? value.toFixed(2) : String(value ?? "");
}
