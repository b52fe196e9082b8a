// SPDX-License-Identifier: MIT
// Formatting of readings for people. An absent value (null or undefined) is always "N/A",
// never 0: a GPU that cannot report a reading must not look idle.

export const NA = "N/A";

export function isAbsent(value) {
  return value === null || value === undefined || Number.isNaN(value);
}

// {text, title, class}: a cell that says N/A with the reason from the document's
// `unavailable` object as its tooltip.
export function absent(reason) {
  if (reason === "mig") return {text: NA, title: "not available in MIG mode: the driver reports no utilisation of the whole GPU or per process", class: "na"};
  return {text: NA, title: reason ? `not available: ${reason.replaceAll("_", " ")}` : "not available", class: "na"};
}

export function percent(value, digits = 0) {
  return isAbsent(value) ? NA : `${value.toFixed(digits)}%`;
}

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

export function bytes(value) {
  if (isAbsent(value)) return NA;
  let scaled = value;
  let unit = 0;
  while (Math.abs(scaled) >= 1024 && unit < BYTE_UNITS.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${scaled} B` : `${scaled.toFixed(scaled < 10 ? 2 : 1)} ${BYTE_UNITS[unit]}`;
}

export function watts(value) {
  return isAbsent(value) ? NA : `${Math.round(value)} W`;
}

export function celsius(value) {
  return isAbsent(value) ? NA : `${Math.round(value)} °C`;
}

export function megahertz(value) {
  return isAbsent(value) ? NA : `${Math.round(value)} MHz`;
}

export function number(value, digits = 2) {
  return isAbsent(value) ? NA : value.toFixed(digits);
}

// How long ago `timeUs` (µs since the epoch) was.
export function age(timeUs, nowUs) {
  if (isAbsent(timeUs) || isAbsent(nowUs)) return NA;
  return wholeDuration((nowUs - timeUs) / 1e6);
}

// Tasks often last less than a second: a short duration keeps its fraction.
export function duration(seconds) {
  if (isAbsent(seconds)) return NA;
  if (seconds < 60) return `${Math.max(0, seconds).toFixed(seconds < 10 ? 2 : 1)}s`;
  return wholeDuration(seconds);
}

// "3d 4h", "2h 5m", "4m 10s", "12s", as `gpumeter list` prints ages.
function wholeDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const parts = [[86400, "d"], [3600, "h"], [60, "m"], [1, "s"]];
  for (let i = 0; i < parts.length - 1; i++) {
    const [size, unit] = parts[i];
    if (s >= size) {
      const [nextSize, nextUnit] = parts[i + 1];
      return `${Math.floor(s / size)}${unit} ${Math.floor((s % size) / nextSize)}${nextUnit}`;
    }
  }
  return `${s}s`;
}

// Energy in Wh below a kWh, so that minutes of use do not read 0.00 kWh.
export function kilowattHours(value) {
  if (isAbsent(value)) return NA;
  return value < 1 ? `${(value * 1000).toFixed(1)} Wh` : `${value.toFixed(2)} kWh`;
}

// Local date and time of µs since the epoch, to the second.
export function localTime(timeUs) {
  if (isAbsent(timeUs)) return NA;
  const d = new Date(timeUs / 1000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
         `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function clockTime(date) {
  return date.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false});
}

// The document's value of `key`, or an N/A cell with its reason.
export function reading(object, key, render) {
  const value = object?.[key];
  if (isAbsent(value)) return absent(object?.unavailable?.[key]);
  return render(value);
}
