// Jobs — CSV imports and generations (complete or fail them now) — and workflow sessions.

import { adminPost, segment } from "../admin-api.js";
import { actionButton, badge, el, table } from "../dom.js";

const TONES = {
  queued: "muted",
  processing: "info",
  paused: "warn",
  complete: "ok",
  completed: "ok",
  error: "bad",
  failed: "bad",
  live: "info",
};

function progressBar(fraction) {
  const percent = Math.max(0, Math.min(100, Math.round(fraction * 100)));
  return el(
    "div",
    { className: "progress", title: `${percent}%`, attrs: { role: "progressbar", "aria-valuenow": percent } },
    el("div", { className: "bar", attrs: { style: `width: ${percent}%` } }),
  );
}

export function renderImports(container, imports, context) {
  const rows = imports.map((job) => {
    const finished = job.status === "complete" || job.status === "error";
    const path = `/__admin/imports/${segment(job.jobId)}`;
    return el(
      "tr",
      { dataset: { jobId: job.jobId, status: job.status } },
      el("td", { className: "mono", text: job.jobId }),
      el("td", {}, badge(job.status, TONES[job.status])),
      el("td", {}, progressBar(job.progress)),
      el("td", { className: "number", text: `${job.processedRows}/${job.totalRows} (${job.failedRows} failed)` }),
      el(
        "td",
        { className: "actions" },
        !finished && actionButton("Complete", "complete", () => context.act(`complete ${job.jobId}`, () => adminPost(`${path}/complete`))),
        !finished &&
          actionButton("Fail", "fail", () => context.act(`fail ${job.jobId}`, () => adminPost(`${path}/fail`, {})), "danger"),
      ),
    );
  });
  container.replaceChildren(table(["Import", "Status", "Progress", "Rows", ""], rows, "No imports: POST a CSV to /api/v2/imports."));
}

export function renderGenerations(container, generations, context) {
  const rows = generations.map((generation) => {
    const finished = generation.status === "completed" || generation.status === "failed";
    const path = `/__admin/generations/${segment(generation.id)}`;
    return el(
      "tr",
      { dataset: { generationId: generation.id, status: generation.status } },
      el("td", { className: "mono", text: generation.id }),
      el("td", { text: generation.userId }),
      el("td", { className: "prompt", text: generation.prompt, title: generation.prompt }),
      el("td", {}, badge(generation.status, TONES[generation.status]), generation.error ? el("span", { className: "muted", text: ` ${generation.error}` }) : null),
      el("td", {}, progressBar(generation.progress / 100)),
      el(
        "td",
        { className: "actions" },
        !finished &&
          actionButton("Complete", "complete", () => context.act(`complete ${generation.id}`, () => adminPost(`${path}/complete`))),
        !finished &&
          actionButton("Fail", "fail", () => context.act(`fail ${generation.id}`, () => adminPost(`${path}/fail`, {})), "danger"),
      ),
    );
  });
  container.replaceChildren(
    table(["Generation", "User", "Prompt", "Status", "Progress", ""], rows, "No generations: POST /api/generations."),
  );
}

export function renderWorkflows(container, workflows) {
  const rows = workflows.map((workflow) =>
    el(
      "tr",
      { dataset: { workflowId: workflow.id } },
      el("td", { className: "mono", text: workflow.id, title: workflow.stream }),
      el("td", {}, badge(workflow.paused ? "paused" : workflow.mode, workflow.paused ? "warn" : TONES[workflow.mode] || "ok")),
      el("td", { className: "number", text: `${workflow.iteration}/${workflow.iterations}` }),
      el("td", { text: workflow.hat }),
      el("td", { className: "number", text: `${Number(workflow.elapsed_secs).toFixed(1)} s` }),
    ),
  );
  container.replaceChildren(table(["Session", "Mode", "Iteration", "Hat", "Elapsed"], rows, "No workflow sessions."));
}
