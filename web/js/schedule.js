// Periodic refreshes that never overlap: the next run is planned when the previous one has
// finished, so a slow server is not sent a pile of requests. Paused while the tab is hidden.

export function every(milliseconds, task) {
  let timer = null;
  const run = async () => {
    clearTimeout(timer);
    try {
      if (!document.hidden) await task();
    } finally {
      timer = setTimeout(run, milliseconds);
    }
  };
  document.addEventListener("visibilitychange", () => { if (!document.hidden) run(); });
  run();
  return {now: run};
}
