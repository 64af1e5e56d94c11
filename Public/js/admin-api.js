// The admin API as the dashboard uses it: JSON in and out, and the admin token when the
// server was started with --admin-token. Routes take the token as `Authorization: Bearer`;
// the live feed takes it as `?access_token=`, because EventSource cannot send headers.

const TOKEN_KEY = "mockbackend.adminToken";

/** The server asks for an admin token and this page has none, or a wrong one. */
export class AdminUnauthorizedError extends Error {
  constructor(detail) {
    super(detail || "The server asks for an admin token.");
    this.name = "AdminUnauthorizedError";
  }
}

/** A request the server refused; `message` is its problem detail. */
export class AdminRequestError extends Error {
  constructor(status, detail) {
    super(detail || `HTTP ${status}`);
    this.name = "AdminRequestError";
    this.status = status;
  }
}

/** The token given on this tab (kept for the tab's lifetime only), or null. */
export function adminToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setAdminToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** The live feed's URL: with the token, and resuming after `lastEventId` when given. */
export function feedURL(lastEventId) {
  const params = new URLSearchParams();
  const token = adminToken();
  if (token) params.set("access_token", token);
  if (lastEventId) params.set("lastEventId", lastEventId);
  const query = params.toString();
  return query ? `/__admin/events?${query}` : "/__admin/events";
}

async function problemDetail(response) {
  try {
    const body = await response.json();
    return typeof body.detail === "string" ? body.detail : null;
  } catch {
    return null;
  }
}

/** Sends one admin request and returns its JSON body (null when there is none). */
export async function adminRequest(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = adminToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (response.status === 401) throw new AdminUnauthorizedError(await problemDetail(response));
  if (!response.ok) throw new AdminRequestError(response.status, await problemDetail(response));
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/**
 * Downloads an admin resource as a file named `filename`: fetched with the admin token (a
 * plain link could not send it), then saved through a link to the blob.
 */
export async function adminDownload(path, filename) {
  const headers = {};
  const token = adminToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { headers, cache: "no-store" });
  if (response.status === 401) throw new AdminUnauthorizedError(await problemDetail(response));
  if (!response.ok) throw new AdminRequestError(response.status, await problemDetail(response));
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

export const adminGet = (path) => adminRequest("GET", path);
export const adminPost = (path, body) => adminRequest("POST", path, body ?? {});
export const adminDelete = (path) => adminRequest("DELETE", path);

/** A path segment, percent-encoded (ids come from the server and may hold anything). */
export const segment = (value) => encodeURIComponent(String(value));
