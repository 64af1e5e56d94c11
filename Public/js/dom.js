// DOM building without HTML parsing: every string from the server becomes a text node or
// an attribute value, never markup, so nothing it sends can run as script on this page.

/**
 * Creates an element. `props` may hold `className`, `text` (its text content), `title`,
 * `dataset` (data-* attributes), `attrs` (other attributes) and `on` (event listeners).
 * Children are nodes or strings (strings become text nodes); null and false are skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined && props.text !== null) node.textContent = String(props.text);
  if (props.title) node.title = String(props.title);
  for (const [key, value] of Object.entries(props.dataset || {})) {
    if (value !== undefined && value !== null) node.dataset[key] = String(value);
  }
  for (const [key, value] of Object.entries(props.attrs || {})) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(key, String(value));
  }
  for (const [type, listener] of Object.entries(props.on || {})) node.addEventListener(type, listener);
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces every child of `node` with `children`. */
export function replaceChildren(node, ...children) {
  node.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined));
}

/** A table with a header row, or a muted line saying `empty` when there are no rows. */
export function table(headers, rows, empty) {
  if (rows.length === 0) return el("p", { className: "empty", text: empty });
  return el(
    "table",
    {},
    el("thead", {}, el("tr", {}, headers.map((header) => el("th", { text: header })))),
    el("tbody", {}, rows),
  );
}

/** A small button that runs `action` and shows it is busy meanwhile. */
export function actionButton(label, actionName, action, className = "") {
  const button = el("button", {
    className: `small ${className}`.trim(),
    text: label,
    attrs: { type: "button" },
    dataset: { action: actionName },
  });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await action();
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/** `HH:MM:SS` of an ISO 8601 time, in the viewer's zone; the input when it does not parse. */
export function clockTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? "");
  return date.toLocaleTimeString([], { hour12: false });
}

/** The first 8 characters of a long id, for narrow columns (the whole id goes in a title). */
export function shortId(id) {
  const text = String(id ?? "");
  return text.length > 12 ? `${text.slice(0, 8)}…` : text;
}

/** A coloured label. */
export function badge(text, tone) {
  return el("span", { className: `badge ${tone || ""}`.trim(), text });
}
