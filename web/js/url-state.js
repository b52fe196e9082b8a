// SPDX-License-Identifier: MIT
// The page's settings kept in its URL's query (?range=6h&gpu=1&free=1&user=ana&task-name=x), so
// that a link or a reload shows the same; changed in place, without a new history entry.

export function urlParam(name) {
  return new URL(location.href).searchParams.get(name);
}

// Sets `name` to `value`, or removes it when `value` is the default (or empty).
export function setUrlParam(name, value, fallback = "") {
  const url = new URL(location.href);
  if (value === fallback || value === "") url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  history.replaceState(null, "", url);
}
