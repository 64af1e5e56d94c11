// Fault rules: the list (remove one) and the form that adds one.

import { adminDelete, adminPost, segment } from "../admin-api.js";
import { actionButton, el, table } from "../dom.js";

/**
 * Example options per kind, put in the options field when the kind changes: one for each of
 * `Fault.kinds`, and each one a fault the server takes (`DashboardContractTests`).
 */
export const FAULT_EXAMPLES = {
  status: { status: 503, retryAfter: 2 },
  forbidden: {},
  delay: { ms: 2000 },
  latency: { ms: 200 },
  drop_after_events: { events: 3 },
  drop_after_bytes: { bytes: 100 },
  cut_inside_event: { events: 2, bytes: 10 },
  fragment: { bytes: 1, delayMs: 20 },
  stall: { afterEvents: 2, ms: 10000 },
  mute: { ms: 10000 },
  blackhole: { afterEvents: 2 },
  buffer: { kb: 4 },
  reset: {},
  empty_response: {},
  malformed: { variant: "MALFORMED_RESPONSE_CHUNK" },
  refuse_stream: { status: 503 },
  rst_stream: { code: 8, afterEvents: 2 },
  goaway: { code: 0, afterEvents: 2 },
  max_concurrent_streams: { n: 6 },
  window_stall: { afterBytes: 1024 },
  content_length_on_stream: {},
};

function describeMatch(match) {
  const parts = [];
  if (match?.method) parts.push(match.method);
  parts.push(match?.path || "any path");
  if (match?.header) parts.push(`headers ${JSON.stringify(match.header)}`);
  return parts.join(" ");
}

export function renderFaults(container, faults, context) {
  const rows = faults.map((rule) => {
    const { kind, ...options } = rule.fault || {};
    return el(
      "tr",
      { dataset: { faultId: rule.id } },
      el("td", { className: "mono", text: rule.id }),
      el("td", { className: "mono", text: describeMatch(rule.match) }),
      el("td", {}, el("strong", { text: kind }), " ", el("span", { className: "mono muted", text: Object.keys(options).length ? JSON.stringify(options) : "" })),
      el("td", { className: "number", text: rule.fired }),
      el("td", { className: "number", text: rule.times ?? "∞" }),
      el(
        "td",
        { className: "actions" },
        actionButton("Remove", "remove", () => context.act(`remove ${rule.id}`, () => adminDelete(`/__admin/faults/${segment(rule.id)}`)), "danger"),
      ),
    );
  });
  container.replaceChildren(table(["Rule", "Match", "Fault", "Fired", "Left", ""], rows, "No fault rules."));
}

/** Wires the add-a-fault form (static in index.html). */
export function setUpFaultForm(form, context) {
  const kind = form.elements.namedItem("kind");
  const options = form.elements.namedItem("options");
  for (const name of Object.keys(FAULT_EXAMPLES)) kind.append(el("option", { text: name, attrs: { value: name } }));
  const showExample = () => {
    options.value = JSON.stringify(FAULT_EXAMPLES[kind.value] || {});
  };
  kind.addEventListener("change", showExample);
  showExample();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let extra;
    try {
      extra = options.value.trim() ? JSON.parse(options.value) : {};
      if (typeof extra !== "object" || extra === null || Array.isArray(extra)) throw new Error("not an object");
    } catch {
      context.report("The options must be a JSON object, e.g. {\"status\":503}.", true);
      return;
    }
    const match = {};
    const method = form.elements.namedItem("method").value.trim();
    const path = form.elements.namedItem("path").value.trim();
    if (method) match.method = method;
    if (path) match.path = path;
    const rule = { match, fault: { ...extra, kind: kind.value } };
    const times = form.elements.namedItem("times").value.trim();
    if (times) rule.times = Number(times);
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;
    try {
      await context.act(`add ${kind.value} fault`, () => adminPost("/__admin/faults", rule));
    } finally {
      submit.disabled = false;
    }
  });
}
