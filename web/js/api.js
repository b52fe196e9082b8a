// SPDX-License-Identifier: MIT
// GET requests to the gpumeter server's JSON API, relative to the page (so that the
// dashboard works behind a reverse proxy under any path), with the bearer token when the
// server asks for one.
import {askForToken, forgetToken, storedToken} from "./token.js";

const TIMEOUT_MS = 8000;

// kind: "unreachable" (no answer), "not_found" (404), "no_snapshot" (503, no sample yet),
// "bad_request" (400), "bad_reply" (not JSON), "http" (any other status).
export class ApiError extends Error {
  constructor(kind, message, status = null) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

// The parsed JSON document of GET api/v1/<path>?<params>.
export async function apiGet(path, params = {}) {
  const url = apiUrl(path, params);
  let refused = false;
  for (;;) {
    const response = await send(url);
    if (response.status !== 401) return parse(response, path);
    if (storedToken()) {
      forgetToken();
      refused = true;
    }
    await askForToken(refused);
  }
}

// Up to `pages` answers of a paged route (GET api/v1/usage and api/v1/tasks, at most 1,000
// rows or tasks each), each asked with the `next` of the one before in parameter `cursor`.
// Returns the first answer with the `key` lists of all of them joined by `join(earlier, page)`,
// and the last one's `truncated` and `next`: what was left when the pages ran out.
export async function apiGetPages(path, params, {key, cursor, pages, join}) {
  const first = await apiGet(path, params);
  let last = first;
  for (let page = 1; page < pages && last.next; page++) {
    last = await apiGet(path, {...params, [cursor]: last.next});
    first[key] = join(first[key], last[key]);
  }
  first.truncated = last.truncated;
  first.next = last.next;
  return first;
}

export function apiUrl(path, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(key, String(value));
  }
  const text = query.toString();
  return `api/v1/${path}${text ? `?${text}` : ""}`;
}

async function send(url) {
  const headers = {Accept: "application/json"};
  const token = storedToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    return await fetch(url, {headers, cache: "no-store", signal: AbortSignal.timeout(TIMEOUT_MS)});
  } catch (error) {
    throw new ApiError("unreachable", `no answer from the server (${error.message})`);
  }
}

async function parse(response, path) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    if (response.ok) throw new ApiError("bad_reply", `${path}: the reply is not JSON`, response.status);
  }
  if (response.ok) return body;
  const detail = body?.error ? `: ${body.error}` : "";
  const kinds = {400: "bad_request", 404: "not_found", 503: "no_snapshot"};
  // A proxy in front of the server answers 502/504 when the server itself is down.
  const kind = kinds[response.status] ?? (response.status === 502 || response.status === 504 ? "unreachable" : "http");
  throw new ApiError(kind, `${path}: HTTP ${response.status}${detail}`, response.status);
}
