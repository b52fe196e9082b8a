// SPDX-License-Identifier: MIT
// What the master's page costs in the browser at fleet size: a fleet document of NODES nodes
// with 8 GPUs each (every node the status document of a real daemon on dgx-8gpu.json, 2 % of
// them unreachable), served to the page in place of GET /api/v1/fleet. Measures the time until
// the grid shows every tile, then for SECONDS how much of the page's main thread long tasks
// (over 50 ms, the Long Tasks API) take and the longest of them while the page refreshes, and
// how long "Free now" takes to apply. Debian's Chromium through playwright-core.
//
// Usage: GPUMETER_BIN=$PWD/build/ci/bin/gpumeter GPUMETER_SOURCE_DIR=$PWD \
//        node bench/fleet_page_bench.mjs [NODES] [SECONDS]     (default 1000 nodes, 20 s)
import {join} from "node:path";

import {launchBrowser} from "../tests/web/browser.mjs";
import {Daemon} from "../tests/web/daemon.mjs";

const nodes = Number(process.argv[2] ?? 1000);
const seconds = Number(process.argv[3] ?? 20);
const scenario = join(process.env.GPUMETER_SOURCE_DIR, "examples", "scenarios", "dgx-8gpu.json");

const {browser, why} = await launchBrowser();
if (!browser) throw new Error(why);
const daemon = await Daemon.start({scenario, epochOffsetSeconds: 120});
try {
  const status = await daemon.api("status");
  let refreshes = 0;
  const fleet = () => JSON.stringify({
    schema_version: 1, source: "agents", error: null,
    nodes: Array.from({length: nodes}, (_, i) => {
      const name = `gpu${String(i).padStart(4, "0")}`;
      const down = i % 50 === 49;
      return {name, url: `http://${name}:9416`, state: down ? "unreachable" : "ok", age_seconds: down ? 300 : 1.5,
              error: down ? "cannot connect" : null, same_host_as: [],
              status: {...status, host: name}, poll: {attempts: 1, failures: 0, skipped: 0, consecutive_failures: 0}};
    }),
  });
  const body = fleet();
  const page = await (await browser.newContext({viewport: {width: 1366, height: 850}})).newPage();
  await page.route("**/api/v1/fleet", (route) => {
    refreshes += 1;
    return route.fulfill({body, contentType: "application/json"});
  });
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration)))
      .observe({type: "longtask", buffered: true});
  });
  const started = Date.now();
  await page.goto(daemon.url);
  const tiles = nodes * status.gpus.length;
  await page.waitForFunction((n) => document.querySelectorAll("#fleet-grid .gpu-tile").length === n, tiles,
                             {timeout: 120000});
  const shown = Date.now() - started;
  await page.evaluate(() => { window.longTasks = []; });
  const before = refreshes;
  await page.waitForTimeout(seconds * 1000);
  const tasks = await page.evaluate(() => window.longTasks);
  const blocked = tasks.reduce((sum, d) => sum + d, 0);
  // The filter's own cost: the change handler renders the grid and the table at once.
  const filtered = await page.evaluate(() => {
    const box = document.querySelector("#fleet-free-only");
    const start = performance.now();
    box.checked = true;
    box.dispatchEvent(new Event("change"));
    return Math.round(performance.now() - start);
  });
  const free = Math.round(status.gpus.filter((g) => g.status === "free").length * nodes * 49 / 50);
  const shownFree = await page.locator("#fleet-grid .gpu-tile").count();
  if (shownFree !== free) throw new Error(`"Free now" shows ${shownFree} tiles, not ${free}`);
  console.log(`${nodes} nodes, ${tiles} GPUs, fleet document ${(body.length / 1048576).toFixed(1)} MiB`);
  console.log(`grid complete ${shown} ms after the page was opened`);
  console.log(`over ${seconds} s: ${refreshes - before} refreshes; long tasks ${tasks.length}, ` +
              `${(100 * blocked / (seconds * 1000)).toFixed(1)} % of the main thread, ` +
              `longest ${Math.round(Math.max(0, ...tasks))} ms`);
  console.log(`"Free now" applied in ${filtered} ms (${free} free GPUs left on the grid)`);
} finally {
  await daemon.stop();
  await browser.close();
}
