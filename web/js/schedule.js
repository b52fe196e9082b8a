// SPDX-License-Identifier: MIT
// Periodic refreshes that never overlap: the next run is planned when the previous one has
// finished, so a slow server is not sent a pile of requests. Paused while the tab is hidden.
// A run that takes long (a fleet of a thousand nodes) spaces the next ones by five times its
// own time, so that refreshing never takes more than a sixth of the page's time.

const COST_FACTOR = 5;

export function every(milliseconds, task) {
  let timer = null;
  const run = async () => {
    clearTimeout(timer);
    const started = performance.now();
    try {
      if (!document.hidden) await task();
    } finally {
      timer = setTimeout(run, Math.max(milliseconds, COST_FACTOR * (performance.now() - started)));
    }
  };
  document.addEventListener("visibilitychange", () => { if (!document.hidden) run(); });
  run();
  return {now: run};
}
