// SPDX-License-Identifier: MIT
// What the dashboard costs: the bytes and requests of a first load and of a reload, the time
// until the GPU table shows, the requests a page sends per minute, and the daemon's CPU time
// per minute without a page and with one page open. Runs `gpumeter daemon --simulate` on
// examples/scenarios/demo-live.json (4 GPUs) and Debian's Chromium through playwright-core.
//
// Usage: GPUMETER_BIN=build/release/bin/gpumeter GPUMETER_SOURCE_DIR=. \
//        node bench/dashboard_bench.mjs [SECONDS]      (default 60 s per CPU measurement)
import {readFileSync} from "node:fs";
import {join} from "node:path";

import {launchBrowser} from "../tests/web/browser.mjs";
import {Daemon} from "../tests/web/daemon.mjs";

const seconds = Number(process.argv[2] ?? 60);
const ticksPerSecond = 100;  // USER_HZ on Linux
const scenario = join(process.env.GPUMETER_SOURCE_DIR, "examples", "scenarios", "demo-live.json");

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(")").pop().trim().split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

async function cpuPerMinute(daemon, during) {
  const start = cpuSeconds(daemon.child.pid);
  await during();
  return ((cpuSeconds(daemon.child.pid) - start) * 60) / seconds;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Bytes on the wire and requests of one load of the page (Resource Timing).
async function load(page, url) {
  const started = Date.now();
  await page.goto(url);
  await page.locator("#gpu-table tbody tr[data-gpu]").first().waitFor();
  const shown = Date.now() - started;
  await page.waitForLoadState("networkidle");
  const entries = await page.evaluate(() => [...performance.getEntriesByType("navigation"),
                                               ...performance.getEntriesByType("resource")]
    .map((e) => ({name: e.name, transfer: e.transferSize, body: e.decodedBodySize, status: e.responseStatus})));
  const assets = entries.filter((e) => !e.name.includes("/api/"));
  return {shown, entries, assets};
}

const {browser, why} = await launchBrowser();
if (!browser) throw new Error(why);
const daemon = await Daemon.start({scenario, epochOffsetSeconds: 300});
try {
  await sleep(3000);
  const idle = await cpuPerMinute(daemon, () => sleep(seconds * 1000));

  const context = await browser.newContext({viewport: {width: 1366, height: 850}});
  const page = await context.newPage();
  let requests = 0;
  page.on("request", (r) => { if (r.url().includes("/api/")) requests++; });
  const first = await load(page, daemon.url);
  const reload = await load(page, daemon.url);
  requests = 0;
  const open = await cpuPerMinute(daemon, () => sleep(seconds * 1000));
  const perMinute = (requests * 60) / seconds;

  const sum = (list, key) => list.reduce((n, e) => n + e[key], 0);
  console.log(`first load: ${first.assets.length} files (the page included), ${sum(first.assets, "body")} bytes, ` +
              `${sum(first.assets, "transfer")} on the wire; GPU table shown after ${first.shown} ms`);
  // Files the browser revalidates (ETag, 304) cost only their headers.
  console.log(`reload: ${reload.assets.length} files, ${sum(reload.assets, "transfer")} bytes on the wire; ` +
              `GPU table after ${reload.shown} ms`);
  console.log(`API requests of one open page: ${perMinute.toFixed(0)} per minute`);
  console.log(`daemon CPU: ${idle.toFixed(2)} s per minute without a page, ${open.toFixed(2)} s with one page open`);
  await context.close();
} finally {
  await daemon.stop();
  await browser.close();
}
