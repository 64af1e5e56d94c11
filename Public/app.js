// The dashboard: loads every admin list once, then keeps it current from the live feed
// (`/__admin/events`) and a light poll for what the feed does not announce (job progress,
// workflow steps). Buttons call the admin API. With --admin-token the page asks for the
// token first.

import { AdminUnauthorizedError, adminGet, adminToken, setAdminToken } from "./js/admin-api.js";
import { LiveFeed } from "./js/live-feed.js";
import { renderFaults, setUpFaultForm } from "./js/panels/faults.js";
import { renderGenerations, renderImports, renderWorkflows } from "./js/panels/jobs.js";
import { prependFeedItem, renderJournal } from "./js/panels/journal.js";
import { renderSessions, renderUsers } from "./js/panels/players.js";
import { renderProxySessions } from "./js/panels/proxy.js";
import { renderRecording } from "./js/panels/recording.js";
import { renderScenarios } from "./js/panels/scenarios.js";
import { renderStreams } from "./js/panels/streams.js";

const FEED_LIMIT = 300;
const POLL_MS = 2000;
const AFTER_EVENT_MS = 150;

const $ = (id) => document.getElementById(id);

/** Each panel: where its data comes from and how it is drawn. */
const PANELS = [
  { path: "/__admin/sessions", target: "sessions", render: renderSessions },
  { path: "/__admin/proxy/sessions", target: "proxy-sessions", render: renderProxySessions },
  { path: "/__admin/recordings/status", target: "recording", render: renderRecording },
  { path: "/__admin/scenarios", target: "scenarios", render: renderScenarios },
  { path: "/__admin/users", target: "users", render: renderUsers },
  { path: "/__admin/streams", target: "streams", render: renderStreams },
  { path: "/__admin/imports", target: "imports", render: renderImports },
  { path: "/__admin/generations", target: "generations", render: renderGenerations },
  { path: "/__admin/workflows", target: "workflows", render: renderWorkflows },
  { path: "/__admin/faults", target: "faults", render: renderFaults },
  { path: "/__admin/requests?limit=100", target: "journal", render: renderJournal },
];

/** What each panel last drew, so an unchanged panel is left alone (and keeps what is typed in it). */
const drawn = new Map();
let refreshing = false;
let refreshAgain = false;
let refreshTimer = null;
let authorized = false;
let feedCount = 0;

const context = {
  /** Runs an admin action, says how it went, and refreshes. */
  async act(label, action) {
    try {
      await action();
      context.report(`${label}: done`);
    } catch (error) {
      if (error instanceof AdminUnauthorizedError) return askForToken(error.message);
      context.report(`${label} failed: ${error.message}`, true);
    }
    scheduleRefresh(0);
  },
  report(text, isError = false) {
    const notice = $("notice");
    notice.textContent = text;
    notice.classList.toggle("error", isError);
  },
};

const feed = new LiveFeed({
  onEvent(event) {
    feedCount += 1;
    $("feed-count").textContent = String(feedCount);
    prependFeedItem($("feed"), event, FEED_LIMIT);
    scheduleRefresh(AFTER_EVENT_MS);
  },
  onState(state) {
    const pill = $("feed-state");
    pill.dataset.state = state;
    pill.textContent = { connecting: "connecting…", live: "live", down: "feed down" }[state] || state;
  },
  async onGaveUp() {
    // A closed source may mean the token is missing or wrong; the lists tell.
    await refresh();
  },
});

async function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  try {
    const results = await Promise.allSettled(PANELS.map((panel) => adminGet(panel.path)));
    const denied = results.find((result) => result.reason instanceof AdminUnauthorizedError);
    if (denied) return askForToken(denied.reason.message);
    results.forEach((result, index) => {
      const panel = PANELS[index];
      if (result.status === "rejected") {
        context.report(`Loading ${panel.path} failed: ${result.reason.message}`, true);
        return;
      }
      const json = JSON.stringify(result.value);
      if (drawn.get(panel.target) === json) return;
      drawn.set(panel.target, json);
      panel.render($(panel.target), result.value, context);
    });
    if (!authorized) becomeAuthorized();
  } finally {
    refreshing = false;
    if (refreshAgain) {
      refreshAgain = false;
      scheduleRefresh(0);
    }
  }
}

function scheduleRefresh(delay) {
  if (refreshTimer !== null) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = null;
    refresh();
  }, delay);
}

function becomeAuthorized() {
  authorized = true;
  $("token-panel").hidden = true;
  $("dashboard").hidden = false;
  feed.start();
}

function askForToken(detail) {
  authorized = false;
  feed.stop();
  feed.onState("down");
  $("feed-state").textContent = "token needed";
  $("feed-state").dataset.state = "token";
  $("dashboard").hidden = true;
  $("token-panel").hidden = false;
  $("token-error").textContent = adminToken() ? `The server refused the token: ${detail}` : "";
  drawn.clear();
  $("admin-token").focus();
}

function setUpTokenForm() {
  $("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setAdminToken($("admin-token").value.trim());
    $("token-error").textContent = "";
    await refresh();
  });
  $("forget-token").addEventListener("click", () => {
    setAdminToken(null);
    askForToken("");
  });
}

async function showVersion() {
  try {
    const health = await adminGet("/__admin/health");
    $("version").textContent = `v${health.version}`;
  } catch {
    // The version is decoration; the panels report real failures.
  }
}

function start() {
  setUpTokenForm();
  setUpFaultForm($("fault-form"), context);
  $("show-requests").addEventListener("change", (event) => {
    $("feed").classList.toggle("hide-requests", !event.target.checked);
  });
  showVersion();
  refresh();
  setInterval(() => {
    if (authorized && document.visibilityState === "visible") scheduleRefresh(0);
  }, POLL_MS);
}

start();
