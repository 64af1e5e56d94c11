// WireMock scenarios: each scenario the mappings name, its state (and the copies clients
// with a scenarioScope value have moved), a select to set its state, and Reset all.

import { adminPost, adminRequest, segment } from "../admin-api.js";
import { actionButton, badge, el, table } from "../dom.js";

export function renderScenarios(container, list, context) {
  const rows = list.scenarios.map((scenario) => {
    const select = el(
      "select",
      { attrs: { "aria-label": `state of ${scenario.name}` }, dataset: { scenarioState: scenario.name } },
      scenario.possibleStates.map((state) =>
        el("option", { text: state, attrs: { value: state, selected: state === scenario.state } }),
      ),
    );
    select.addEventListener("change", () =>
      context.act(`set ${scenario.name} to ${select.value}`, () =>
        adminRequest("PUT", `/__admin/scenarios/${segment(scenario.name)}/state`, { state: select.value }),
      ),
    );
    const copies = scenario.scopes.map((copy) => `${copy.value}: ${copy.state}`).join(", ");
    return el(
      "tr",
      { dataset: { scenario: scenario.name, state: scenario.state } },
      el("td", { text: scenario.name }),
      el("td", {}, badge(scenario.state, scenario.state === "Started" ? "" : "ok")),
      el("td", { className: "muted", text: copies }),
      el("td", { className: "number", text: String(scenario.mappings.length) }),
      el("td", { className: "actions" }, select),
    );
  });
  container.replaceChildren(
    table(
      ["Scenario", "State", "Per client", "Mappings", "Set state"],
      rows,
      "No scenarios: mappings with scenarioName show here.",
    ),
    list.scenarios.length > 0 &&
      actionButton("Reset all", "reset-scenarios", () =>
        context.act("reset scenarios", () => adminPost("/__admin/scenarios/reset")),
      ),
  );
}
