// SPDX-License-Identifier: MIT
// The dashboard in a real browser (Debian's Chromium, headless) against a real
// `gpumeter daemon --simulate` serving the page and the API: the GPU table, the charts of the
// last hour, the processes, usage, tasks and accounting records show what the daemon says, at
// a laptop's and a phone's size, in light and dark colours, readable; a token is asked for
// once; a daemon that goes away is reported. Screenshots go to <build>/tests/web/artifacts/.
import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {after, before, describe, it} from "node:test";

import {launchBrowser, SKIP} from "./browser.mjs";
import {Daemon} from "./daemon.mjs";
import {contrastReport, horizontalOverflow, seriesPixels, seriesPixelsOnceDrawn} from "./page_checks.mjs";
import {scenarioAt} from "./scenario.mjs";

const source = process.env.GPUMETER_SOURCE_DIR;
const artifacts = join(process.env.GPUMETER_BINARY_DIR, "tests", "web", "artifacts");
const scenarioPath = join(source, "examples", "scenarios", "demo-live.json");
const SCENARIO_TIME = 300;  // s after the scenario's start: every user's process is running
const expected = scenarioAt(scenarioPath, SCENARIO_TIME);
// The words of `gpumeter list`'s statuses (docs/cli.md), as the page must show them.
const STATUS_WORDS = {free: "free", in_use: "in use", unknown_owner: "owner unknown", unknown: "unknown", lost: "lost"};
const SERIES_COLOURS = ["#2f7fd1", "#d1452f", "#2c9a4a", "#9b59d0"];
const LAPTOP = {width: 1366, height: 850};
const PHONE = {width: 390, height: 844};

const launched = await launchBrowser();
if (!launched.browser) {
  console.log(`skipped: ${launched.why}`);
  process.exit(SKIP);
}
const {browser} = launched;
mkdirSync(artifacts, {recursive: true});

// A page that fails the test on any script error.
async function openPage(url, viewport, options = {}) {
  const context = await browser.newContext({viewport, ...options});
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  await page.goto(url);
  return page;
}

async function cellTexts(page, selector) {
  return page.locator(selector).allInnerTexts();
}

describe("the dashboard", () => {
  after(async () => {
    await browser.close();
  });

  describe("of a daemon on the simulated 4-GPU server", () => {
    let daemon;
    let status;

    before(async () => {
      daemon = await Daemon.start({scenario: scenarioPath, epochOffsetSeconds: SCENARIO_TIME,
                                   extraArgs: ["--quota", join(source, "examples", "quota-demo.txt")]});
      const worker = spawnSync("python3", [join(source, "examples", "workers", "python_worker.py"),
                                           "--tasks", "2", "--max-idle", "0.2", "--socket", daemon.socket],
                               {encoding: "utf8", timeout: 60000});
      assert.equal(worker.status, 0, worker.stderr);
      // The charts need two points of every series (a 10 s step), usage a recorded interval.
      await daemon.until("usage?by=user&since=1h", (d) => expected.users.every((u) => d.rows.some((r) => r.user === u)),
                         "every user in the recorded usage");
      await daemon.until("history?gpu=0&metric=utilization_gpu_percent&since=1h&step=10s",
                         (d) => d.avg.filter((v) => v !== null).length >= 2, "two points of history");
      status = await daemon.api("status");
    });

    after(async () => {
      await daemon?.stop();
    });

    describe("on a laptop", () => {
      let page;
      before(async () => { page = await openPage(daemon.url, LAPTOP); });
      after(async () => { await page.context().close(); });

      it("lists every GPU with the status words and colours of gpumeter list", async () => {
        await page.locator("#gpu-table tbody tr[data-gpu]").nth(expected.gpuCount - 1).waitFor();
        const rows = page.locator("#gpu-table tbody tr[data-gpu]");
        assert.equal(await rows.count(), status.gpus.length);
        assert.equal(status.gpus.length, expected.gpuCount);
        for (const gpu of status.gpus) {
          const row = page.locator(`#gpu-table tr[data-gpu="${gpu.index}"]`);
          assert.equal(await row.getAttribute("data-status"), gpu.status);
          assert.equal(await row.locator(".badge").first().innerText(), STATUS_WORDS[gpu.status]);
          assert.equal(await row.locator('td[data-label="Name"]').getAttribute("title"), gpu.name);
          assert.match(await row.locator('td[data-label="Util"]').innerText(), /^\d+%$/);
        }
        assert.ok(status.gpus.some((g) => g.status === "unknown_owner"), "the scenario has a hidden owner");
      });

      it("shows each process with its user and command, and N/A for the owner it cannot see", async () => {
        const processCount = status.gpus.reduce((n, g) => n + g.processes.length, 0);
        await page.locator("#process-table tbody tr[data-pid]").nth(processCount - 1).waitFor();
        assert.equal(await page.locator("#process-table tbody tr[data-pid]").count(), processCount);
        const commands = (await cellTexts(page, '#process-table td[data-label="Command"]')).join("\n");
        for (const command of expected.commands) assert.ok(commands.includes(command), `${command} missing`);
        const users = await cellTexts(page, '#process-table td[data-label="User"]');
        assert.deepEqual([...new Set(users.filter((u) => u !== "N/A"))].sort(), expected.users);
        assert.equal(users.filter((u) => u === "N/A").length, expected.hidden);
      });

      it("shows no vGPU section on a bare-metal host", async () => {
        assert.equal((await daemon.api("vgpu")).gpus.every((g) => g.vgpu === null), true);
        assert.equal(await page.locator("#vgpu").isVisible(), false);
      });

      it("draws the last hour of utilization, memory, power and temperature for every GPU", async () => {
        await page.waitForFunction((n) => document.querySelectorAll("figure.chart canvas").length === n, 4);
        await page.waitForFunction(() => [...document.querySelectorAll("figure.chart .u-legend .u-value")]
          .filter((v) => /\d/.test(v.textContent)).length >= 16, null, {timeout: 30000});
        const pixels = await seriesPixelsOnceDrawn(page, SERIES_COLOURS, 100);
        assert.deepEqual(Object.keys(pixels).sort(),
                         ["memory_used_bytes", "power_draw_watts", "temperature_celsius", "utilization_gpu_percent"]);
        for (const [metric, count] of Object.entries(pixels)) assert.ok(count > 100, `${metric}: ${count} pixels drawn`);
        // Ampere GPUs: no GPM, so no GPM chart (only a GPU with GPM gets one).
        assert.equal(await page.locator('figure.chart[data-metric^="gpm_"]').count(), 0);
        const axes = await page.locator("figure.chart").allInnerTexts();
        for (const [i, unit] of ["%", "GiB", "W", "°C"].entries()) assert.match(axes[i], new RegExp(`\\(${unit}\\)`));
      });

      it("charts any range from 15 minutes to 90 days, kept in the URL with the GPU", async () => {
        const asked = [];
        const listen = (request) => { if (request.url().includes("/api/v1/history")) asked.push(new URL(request.url())); };
        page.on("request", listen);
        await page.selectOption("#chart-range", "6h");
        await page.waitForFunction(() => document.querySelector("#charts-title").textContent === "Last 6 hours");
        assert.equal(new URL(page.url()).searchParams.get("range"), "6h");
        await page.waitForFunction(() => document.querySelectorAll("figure.chart canvas").length === 4);
        await page.waitForFunction(() => [...document.querySelectorAll("figure.chart .u-legend .u-value")]
          .filter((v) => /\d/.test(v.textContent)).length >= 16, null, {timeout: 30000});
        page.off("request", listen);
        // The daemon picks the step: no more than 720 buckets for any range.
        assert.ok(asked.length >= 4 && asked.every((u) => u.searchParams.get("since") === "6h" && !u.searchParams.has("step")),
                  asked.map(String).join());
        const options = await page.locator("#chart-range option").evaluateAll((all) => all.map((o) => o.value));
        assert.deepEqual(options, ["15m", "1h", "6h", "24h", "7d", "30d", "90d"]);

        // A link with the range and the GPU opens on them.
        const linked = await (await page.context().browser().newContext({viewport: LAPTOP})).newPage();
        await linked.goto(`${daemon.url}?range=90d&gpu=1`);
        await linked.waitForFunction(() => document.querySelector("#charts-title").textContent === "Last 90 days" &&
          document.querySelector("#chart-gpu").value === "1");
        await linked.waitForFunction(() => document.querySelectorAll("figure.chart canvas").length === 4);
        await linked.context().close();

        // Back to the last hour: the URL holds nothing but the defaults.
        await page.selectOption("#chart-range", "1h");
        assert.equal(new URL(page.url()).search, "");
        await page.waitForFunction(() => document.querySelector("#charts-title").textContent === "Last hour");
        const before = await seriesPixelsOnceDrawn(page, SERIES_COLOURS, 100);
        assert.ok(Object.values(before).every((count) => count > 100), JSON.stringify(before));

        // A refresh that fails (the next one, within 10 s) keeps the charts and says why.
        await page.route("**/api/v1/history*", (route) => route.fulfill({status: 503, json: {error: "restarting"}}));
        try {
          await page.waitForFunction(() => [...document.querySelectorAll("figure.chart .chart-state")]
            .every((p) => /restarting; the chart shows the last readings it got/.test(p.textContent)), null, {timeout: 30000});
          const kept = await seriesPixelsOnceDrawn(page, SERIES_COLOURS, 100);
          assert.ok(Object.values(kept).every((count) => count > 100), JSON.stringify(kept));
        } finally {
          await page.unroute("**/api/v1/history*");
        }
      });

      it("zooms all charts by dragging across one, and shows the whole hour again on double-click", async () => {
        const over = page.locator('figure[data-metric="utilization_gpu_percent"] .u-over');
        const box = await over.boundingBox();
        await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, {steps: 5});
        await page.mouse.up();
        assert.equal(await page.locator("#chart-grid").getAttribute("data-zoomed"), "true");
        assert.match(await page.locator("#charts-hint").innerText(), /^Showing \d\d:\d\d:\d\d to \d\d:\d\d:\d\d/);
        await over.dblclick();
        assert.equal(await page.locator("#chart-grid").getAttribute("data-zoomed"), "false");
      });

      it("shows the GPU-hours of every user of the scenario", async () => {
        await page.locator("#usage-users tbody tr[data-user]").first().waitFor();
        const users = await page.locator("#usage-users tbody tr[data-user]").evaluateAll((rows) => rows.map((r) => r.dataset.user));
        for (const user of expected.users) assert.ok(users.includes(user), `${user} missing from ${users}`);
        const hours = await cellTexts(page, '#usage-users td[data-label="GPU-hours"]');
        assert.ok(hours.every((h) => /^(< )?\d+\.\d+$/.test(h)), hours.join());
      });

      it("draws a quota bar for each user a quota limits", async () => {
        const usage = await daemon.api("usage?by=user&since=24h");
        assert.ok(usage.rows.some((r) => r.quota) && usage.rows.some((r) => r.user && !r.quota), "quota-demo.txt limits some users");
        for (const row of usage.rows.filter((r) => r.user)) {
          const cell = page.locator(`#usage-users tr[data-user="${row.user}"] td[data-label="Quota"]`);
          const text = await cell.innerText();
          if (!row.quota) {
            assert.equal(text, "no quota", row.user);
            continue;
          }
          assert.ok(text.includes(`/ ${row.quota.gpu_hours} h`), `${row.user}: ${text}`);
          assert.equal(await cell.locator(".meter-fill").count(), 1);
        }
      });

      it("lists the tasks a worker marked", async () => {
        const tasks = await daemon.api("tasks?since=1h");
        assert.equal(tasks.tasks.length, 2);
        await page.locator("#task-table tbody tr[data-task]").nth(1).waitFor({timeout: 15000});
        const names = await cellTexts(page, '#task-table td[data-label="Name"]');
        assert.deepEqual(names.sort(), tasks.tasks.map((t) => t.name).sort());
      });

      it("lists the driver's accounting records, and says which GPUs have the mode off", async () => {
        const accounting = await daemon.api("accounting");
        const records = accounting.gpus.flatMap((g) => (g.records ?? []).map((r) => ({...r, gpu: g.index})));
        assert.ok(records.length > 0, "demo-live.json has accounting on");
        await page.locator("#accounting-table tbody tr[data-pid]").nth(records.length - 1).waitFor({timeout: 15000});
        const rows = await page.locator("#accounting-table tbody tr[data-pid]")
          .evaluateAll((trs) => trs.map((r) => `${r.dataset.gpu}/${r.dataset.pid}`));
        assert.deepEqual(rows.sort(), records.map((r) => `${r.gpu}/${r.pid}`).sort());
        // An exited process's lifetime figures are final; a running one's move a little between
        // the page's fetch and this test's (its average takes in the seconds between), so it may
        // differ by a point or two.
        for (const record of records.filter((r) => r.gpu_utilization_percent !== null)) {
          const cell = page.locator(`#accounting-table tr[data-gpu="${record.gpu}"][data-pid="${record.pid}"] td[data-label="GPU util (life)"]`);
          const text = await cell.innerText();
          if (!record.running) {
            assert.equal(text, `${record.gpu_utilization_percent.toFixed(0)}%`);
            continue;
          }
          assert.match(text, /^\d+%$/);
          const shown = Number.parseInt(text, 10);
          assert.ok(Math.abs(shown - record.gpu_utilization_percent) <= 2,
            `pid ${record.pid}: the page shows ${text}, the API ${record.gpu_utilization_percent}`);
        }
        const off = accounting.gpus.filter((g) => g.enabled === false).map((g) => `GPU ${g.index}: accounting mode is off`);
        const note = off.length > 0 ? await page.locator("#accounting-note").innerText() : "";
        for (const line of off) assert.ok(note.includes(line), `${line} missing from "${note}"`);
      });

      it("keeps text readable (WCAG AA contrast) in light and dark colours", async () => {
        for (const scheme of ["light", "dark"]) {
          // The charts are made again in the new colours: wait for the new ones to be drawn.
          await page.evaluate(() => { window.chartBeforeSwitch = document.querySelector("figure.chart"); });
          await page.emulateMedia({colorScheme: scheme});
          if (scheme !== "light") {
            await page.waitForFunction(() => !document.contains(window.chartBeforeSwitch) &&
              [...document.querySelectorAll("figure.chart .u-legend .u-value")].filter((v) => /\d/.test(v.textContent)).length >= 16);
          }
          const report = await contrastReport(page);
          assert.ok(report.length > 50, `${report.length} text elements measured`);
          const poor = report.filter((r) => r.ratio < 4.5);
          assert.deepEqual(poor, [], `${scheme}: low contrast`);
          await page.screenshot({path: join(artifacts, `dashboard-laptop-${scheme}.png`), fullPage: true});
        }
        await page.emulateMedia({colorScheme: "light"});
      });

      it("raised no script error", () => {
        assert.deepEqual(page.errors, []);
      });
    });

    describe("on a phone", () => {
      let page;
      before(async () => { page = await openPage(daemon.url, PHONE, {isMobile: true, hasTouch: true, deviceScaleFactor: 2}); });
      after(async () => { await page.context().close(); });

      it("turns the tables into cards and never scrolls sideways", async () => {
        await page.locator("#gpu-table tbody tr[data-gpu]").nth(expected.gpuCount - 1).waitFor();
        assert.equal(await page.locator("#gpu-table thead").isVisible(), false);
        assert.equal(await page.locator('#gpu-table tr[data-gpu="0"] td[data-label="Memory"]').isVisible(), true);
        await page.waitForFunction(() => document.querySelectorAll("figure.chart canvas").length === 4);
        await page.waitForTimeout(500);
        const {page: width, viewport} = await horizontalOverflow(page);
        assert.ok(width <= viewport, `the page is ${width} px wide on a ${viewport} px screen`);
        for (const box of await page.locator("figure.chart canvas").evaluateAll((c) => c.map((x) => x.getBoundingClientRect().width))) {
          assert.ok(box <= viewport, `a chart is ${box} px wide`);
        }
      });

      it("draws the charts", async () => {
        await page.waitForFunction(() => [...document.querySelectorAll("figure.chart .u-legend .u-value")]
          .filter((v) => /\d/.test(v.textContent)).length >= 16, null, {timeout: 30000});
        const pixels = await seriesPixelsOnceDrawn(page, SERIES_COLOURS, 100);
        for (const [metric, count] of Object.entries(pixels)) assert.ok(count > 100, `${metric}: ${count} pixels drawn`);
        await page.locator("#usage-users tbody tr[data-user]").first().waitFor();
        await page.screenshot({path: join(artifacts, "dashboard-phone.png"), fullPage: true});
        assert.deepEqual(page.errors, []);
      });
    });

    describe("when the daemon goes away", () => {
      it("says the server is unreachable and greys out the last data", async () => {
        const page = await openPage(daemon.url, LAPTOP);
        await page.locator("#gpu-table tbody tr[data-gpu]").first().waitFor();
        await daemon.stop();
        await page.waitForSelector(".connection.failing", {timeout: 15000});
        assert.match(await page.locator("#connection").innerText(), /server unreachable since \d\d:\d\d:\d\d.*showing the data of/);
        assert.equal(await page.evaluate(() => document.body.classList.contains("stale")), true);
        // The last reading stays on the page through the failed refreshes that follow.
        const shown = await page.locator("#gpu-table tbody").innerText();
        await page.waitForTimeout(4500);
        assert.equal(await page.locator("#gpu-table tbody").innerText(), shown);
        assert.equal(await page.locator("#gpu-table tbody tr[data-gpu]").count(), expected.gpuCount);
        await page.screenshot({path: join(artifacts, "dashboard-unreachable.png")});
        await page.context().close();
      });
    });
  });

  // `gpumeter master` serves the page with GET /api/v1/fleet. Here the fleet document is
  // composed in the test, in the shape the master serves, from the status documents of two
  // real daemons plus a node that cannot be reached; everything else the page reads is the
  // first daemon's.
  describe("in fleet mode", () => {
    let daemons;
    let page;
    before(async () => {
      daemons = [await Daemon.start({scenario: scenarioPath, epochOffsetSeconds: SCENARIO_TIME}),
                 await Daemon.start({scenario: join(source, "examples", "scenarios", "workstation.json")})];
      const [self, lab] = daemons;
      page = await (await browser.newContext({viewport: LAPTOP})).newPage();
      page.errors = [];
      page.on("pageerror", (error) => page.errors.push(error.message));
      await page.route("**/api/v1/fleet", async (route) => {
        const nodes = [
          {name: "self-node", url: "self", state: "ok", age_seconds: 0.4, error: null, status: await self.api("status")},
          {name: "lab", url: lab.url.slice(0, -1), state: "ok", age_seconds: 1.2, error: null, status: await lab.api("status")},
          {name: "old", url: "http://127.0.0.1:9", state: "unreachable", age_seconds: 312, error: "connection refused", status: null},
          // The lab machine configured a second time: the master flags both, never merges them.
          {name: "lab-twin", url: lab.url.slice(0, -1), state: "ok", age_seconds: 1.3, error: null, status: await lab.api("status"), same_host_as: ["lab"]},
        ];
        nodes[1].same_host_as = ["lab-twin"];
        await route.fulfill({json: {schema_version: 1, source: "agents", error: null, nodes}});
      });
      await page.goto(self.url);
    });
    after(async () => {
      await page?.context().close();
      for (const daemon of daemons ?? []) await daemon.stop();
    });

    it("lists the nodes with their states and shows the first good one", async () => {
      await page.locator("#fleet-table tbody tr[data-node]").nth(2).waitFor();
      assert.equal(await page.locator("#fleet").isVisible(), true);
      const states = await page.locator("#fleet-table tbody tr[data-node]").evaluateAll((rows) => rows.map((r) => r.dataset.state));
      assert.deepEqual(states, ["ok", "ok", "unreachable", "ok"]);
      const names = await cellTexts(page, '#gpu-table td[data-label="Name"]');
      assert.deepEqual(names, (await daemons[0].api("status")).gpus.map((g) => g.name.replace(/^NVIDIA /, "")));
      assert.match(await page.locator("#charts-note").innerText(), /kept by a gpumeter daemon on it/);
    });

    it("shows every GPU of every node in a grid, the free ones alone on demand", async () => {
      const gpus = [...(await daemons[0].api("status")).gpus, ...(await daemons[1].api("status")).gpus,
                    ...(await daemons[1].api("status")).gpus];
      const free = gpus.filter((g) => g.status === "free").length;
      await page.waitForFunction((n) => document.querySelectorAll("#fleet-grid .gpu-tile").length === n, gpus.length);
      const tiles = await page.locator("#fleet-grid .gpu-tile").evaluateAll((all) => all.map((t) => t.dataset.status));
      assert.deepEqual(tiles, gpus.map((g) => g.status));
      const summary = await page.locator("#fleet-summary").innerText();
      assert.match(summary, new RegExp(`^${gpus.length} GPUs on 4 nodes: ${free} free`));
      assert.match(summary, /1 node without a fresh reading/);
      assert.match(await page.locator('#fleet-grid .grid-node[data-node="lab-twin"]').innerText(), /same host as lab/);
      assert.match(await page.locator('#fleet-table tr[data-node="lab"]').innerText(), /same host as lab-twin/);
      assert.match(await page.locator('#fleet-grid .grid-node[data-node="old"]').innerText(), /no reading/);
      await page.screenshot({path: join(artifacts, "dashboard-fleet-grid.png"), fullPage: true});

      await page.check("#fleet-free-only");
      await page.waitForFunction((n) => document.querySelectorAll("#fleet-grid .gpu-tile").length === n, free);
      const shown = await page.locator("#fleet-grid .gpu-tile").evaluateAll((all) => all.map((t) => t.dataset.status));
      assert.ok(shown.every((status) => status === "free"), shown.join());
      assert.equal(new URL(page.url()).searchParams.get("free"), "1");
      assert.equal(await page.locator('#fleet-grid .grid-node[data-node="old"]').count(), 0);
      await page.screenshot({path: join(artifacts, "dashboard-fleet-free.png")});
      await page.uncheck("#fleet-free-only");
      await page.waitForFunction((n) => document.querySelectorAll("#fleet-grid .gpu-tile").length === n, gpus.length);
      assert.equal(new URL(page.url()).searchParams.get("free"), null);
    });

    it("shows the node the user picks, and N/A for one that cannot be reached", async () => {
      await page.click('#fleet-table tr[data-node="lab"] button');
      const labGpus = (await daemons[1].api("status")).gpus;
      await page.waitForFunction((n) => document.querySelectorAll("#gpu-table tbody tr[data-gpu]").length === n &&
        document.querySelector("#fleet-table tr.chosen")?.dataset.node === "lab", labGpus.length);
      const titles = await page.locator('#gpu-table td[data-label="Name"]').evaluateAll((cells) => cells.map((c) => c.title));
      assert.deepEqual(titles, labGpus.map((g) => g.name));
      assert.match(await page.locator("#charts-note").innerText(), new RegExp(`open ${daemons[1].url.slice(0, -1)}`));
      await page.screenshot({path: join(artifacts, "dashboard-fleet.png"), fullPage: true});
      await page.click('#fleet-table tr[data-node="old"] button');
      await page.waitForFunction(() => /old is unreachable/.test(document.querySelector("#gpu-table tbody").textContent));
      assert.equal(await page.locator("#gpu-table tbody tr[data-gpu]").count(), 0);
      assert.deepEqual(page.errors, []);
    });

    // On a phone, a machine's free GPUs come first (the workstation's GPU 3 is its free one).
    it("puts the free GPUs' cards first on a phone", async () => {
      const lab = await daemons[1].api("status");
      const free = lab.gpus.filter((g) => g.status === "free").map((g) => String(g.index));
      assert.ok(free.length > 0 && free.length < lab.gpus.length && free[0] !== "0", free.join());
      const phone = await openPage(daemons[1].url, PHONE, {isMobile: true, hasTouch: true});
      await phone.locator("#gpu-table tbody tr[data-gpu]").nth(lab.gpus.length - 1).waitFor();
      // Waits for the cards to be laid out: one look taken as soon as the last row appeared
      // found GPU 0 on top once, under ASan with builds beside it. A layout that never puts the
      // free cards first still fails below.
      await phone.waitForFunction((want) => {
        const rows = [...document.querySelectorAll("#gpu-table tbody tr[data-gpu]")];
        const top = rows.reduce((first, r) => (r.getBoundingClientRect().top < first.getBoundingClientRect().top ? r : first));
        return top.dataset.gpu === want;
      }, free[0], {timeout: 10_000}).catch(() => {});
      const order = await phone.locator("#gpu-table tbody tr[data-gpu]").evaluateAll((rows) =>
        rows.map((r) => ({gpu: r.dataset.gpu, y: r.getBoundingClientRect().top})).sort((a, b) => a.y - b.y).map((r) => r.gpu));
      assert.deepEqual(order.slice(0, free.length), free);
      await phone.context().close();
    });

    // Past 50 nodes the table lists the nodes that need a look and the chosen one; the grid
    // has every node.
    it("lists only the nodes that need a look in a large fleet's table", async () => {
      const status = await daemons[1].api("status");
      const nodes = Array.from({length: 60}, (_, i) => ({
        name: `n${String(i).padStart(2, "0")}`, url: `http://n${i}:9416`, state: i === 7 ? "unreachable" : "ok",
        age_seconds: 1, error: i === 7 ? "connection refused" : null, same_host_as: [], status: {...status, host: `n${i}`}}));
      await page.unroute("**/api/v1/fleet");
      await page.route("**/api/v1/fleet", (route) => route.fulfill({json: {schema_version: 1, source: "agents", error: null, nodes}}));
      await page.reload();
      await page.waitForFunction((n) => document.querySelectorAll("#fleet-grid .gpu-tile").length === n, 60 * status.gpus.length);
      const listed = await page.locator("#fleet-table tbody tr[data-node]").evaluateAll((rows) => rows.map((r) => r.dataset.node));
      assert.deepEqual(listed, ["n00", "n07"]);  // the chosen (first good) node, the unreachable one
      assert.match(await page.locator("#fleet-table caption").innerText(), /58 more nodes read normally/);
      assert.deepEqual(page.errors, []);
    });
  });

  // A node in poor health (examples/scenarios/ailing-node.json): each GPU's status carries what
  // needs a look.
  describe("of a daemon on an ailing node", () => {
    let daemon;
    let page;
    before(async () => {
      // Scenario time 15 s at the start: GPU 0's XIDs fall due at 18 and 24 s.
      daemon = await Daemon.start({scenario: join(source, "examples", "scenarios", "ailing-node.json"), epochOffsetSeconds: 15});
      page = await openPage(daemon.url, LAPTOP);
    });
    after(async () => {
      await page?.context().close();
      await daemon?.stop();
    });

    it("marks the GPU that needs a reset, counts ECC errors and XIDs, the one slowed by heat and the one with pages to retire", async () => {
      const status = await daemon.api("status");
      assert.equal(status.gpus[0].remap_pending, 1);
      assert.ok(status.gpus[1].clock_event_reasons & 32, JSON.stringify(status.gpus[1].clock_event_reasons));
      assert.equal(status.gpus[2].retired_pages_pending, 1);
      assert.equal(status.gpus[2].retired_pages_single_bit, 4);
      const badges = async (gpu) => page.locator(`#gpu-table tr[data-gpu="${gpu}"] td[data-label="Status"] .badge`).allInnerTexts();
      await page.locator('#gpu-table tr[data-gpu="2"]').waitFor();
      assert.deepEqual((await badges(1)).slice(0, 2), ["in use", "hot"]);
      assert.deepEqual(await badges(2), ["free", "reload needed", "ECC"]);
      // The XIDs at 18 and 24 s reach the page within a few refreshes.
      await page.waitForFunction(() => [...document.querySelectorAll('#gpu-table tr[data-gpu="0"] td[data-label="Status"] .badge')]
        .some((b) => b.textContent === "XID 94"), null, {timeout: 30000});
      // (XID 63 follows at 45 s: a slow machine may already show it.)
      const zero = await badges(0);
      assert.deepEqual(zero.slice(0, 3), ["in use", "reset needed", "ECC"]);
      assert.match(zero[3], /^XID (94|63)$/);
      const after = await daemon.api("status");
      assert.ok(after.gpus[0].xid_errors_total >= 2, JSON.stringify(after.gpus[0]));
      assert.ok([94, 63].includes(after.gpus[0].xid_last), JSON.stringify(after.gpus[0]));
      assert.equal(after.gpus[1].xid_errors_total, 0);
      assert.deepEqual(page.errors, []);
    });
  });

  // A notebook that holds memory and leaves the GPU idle beside a busy training run: the process
  // table marks the idle holder, and filters and sorts by user, kept in the URL.
  describe("of a daemon with an idle holder", () => {
    let daemon;
    let page;
    before(async () => {
      daemon = await Daemon.start({scenario: join(source, "tests", "web", "idle-holder.json"), epochOffsetSeconds: 30});
      page = await openPage(daemon.url, LAPTOP);
    });
    after(async () => {
      await page?.context().close();
      await daemon?.stop();
    });

    it("marks the process that holds memory and leaves the GPU idle", async () => {
      // The SM figures come from the history, written every second here.
      await page.waitForFunction(() => /idle/.test(document.querySelector('#process-table tr[data-pid="5101"]')?.textContent ?? ""),
                                 null, {timeout: 30000});
      assert.equal(await page.locator('#process-table tr[data-pid="5101"]').getAttribute("class"), "idle");
      assert.equal(await page.locator('#process-table tr[data-pid="5102"]').getAttribute("class"), null);
      assert.match(await page.locator('#process-table tr[data-pid="5101"] td[data-label^="SM"] > span').getAttribute("title"),
                   /holds 4\.00 GiB of GPU memory and kept the GPU under 1 % busy/);
      await page.screenshot({path: join(artifacts, "dashboard-idle-holder.png")});
    });

    it("filters and sorts the processes by user, kept in the URL", async () => {
      const pids = () => page.locator("#process-table tbody tr[data-pid]").evaluateAll((rows) => rows.map((r) => r.dataset.pid));
      assert.deepEqual(await pids(), ["5101", "5102"]);  // by GPU, then pid
      assert.deepEqual(await page.locator("#process-user option").evaluateAll((all) => all.map((o) => o.value)), ["", "ana", "ben"]);
      await page.selectOption("#process-user", "ben");
      assert.deepEqual(await pids(), ["5101"]);
      assert.equal(new URL(page.url()).searchParams.get("user"), "ben");
      await page.selectOption("#process-user", "");
      for (const sort of ["user", "memory", "sm"]) {  // ana, 16 GiB, 70 % first
        await page.selectOption("#process-sort", sort);
        assert.deepEqual(await pids(), ["5102", "5101"], sort);
      }
      assert.equal(new URL(page.url()).searchParams.get("sort"), "sm");
      const linked = await openPage(`${daemon.url}?user=ana&sort=memory`, LAPTOP);
      await linked.locator("#process-table tbody tr[data-pid]").first().waitFor();
      assert.deepEqual(await linked.locator("#process-table tbody tr[data-pid]").evaluateAll((rows) => rows.map((r) => r.dataset.pid)), ["5102"]);
      assert.equal(await linked.locator("#process-sort").inputValue(), "memory");
      await linked.context().close();
      assert.deepEqual(page.errors, []);
    });
  });

  // A vGPU host: the section lists every VM's instance with its type, licence and use, and
  // the processes inside the VMs, as GET /api/v1/vgpu says; bare-metal hosts never show it.
  // A Jetson Orin Nano (--simulate-jetson): the board's files read through the Jetson source.
  // This test process is on its GPU (named in the scenario), so its tasks get the whole GPU's
  // figures.
  describe("of a daemon on a simulated Jetson board", () => {
    let daemon;
    let page;
    let scenarioDir;
    before(async () => {
      scenarioDir = mkdtempSync(join(tmpdir(), "gpumeter-browser-jetson-"));
      const board = JSON.parse(readFileSync(join(source, "examples", "scenarios", "jetson-orin-nano.json")));
      board.processes.push({device: 0, pid_env: "GPUMETER_TEST_NODE_PID", used_memory_bytes: 268435456,
                            utilization: {sm: 40}});
      const scenario = join(scenarioDir, "orin-with-node.json");
      writeFileSync(scenario, JSON.stringify(board));
      process.env.GPUMETER_TEST_NODE_PID = String(process.pid);
      daemon = await Daemon.start({scenario, jetson: true, epochOffsetSeconds: 60});
      page = await openPage(daemon.url, LAPTOP);
    });
    after(async () => {
      await page?.context().close();
      await daemon?.stop();
      rmSync(scenarioDir, {recursive: true, force: true});
    });

    it("shows the board in the GPU table and its rails, zones and engines", async () => {
      await page.locator("#gpu-table tbody tr[data-gpu]").first().waitFor({timeout: 30000});
      const names = await cellTexts(page, '#gpu-table td[data-label="Name"]');
      assert.ok(names[0].includes("Jetson Orin Nano"), names.join());
      await page.locator("#board-rails tbody tr").nth(2).waitFor({timeout: 30000});
      assert.equal(await page.locator("#board").isVisible(), true);
      const rails = await cellTexts(page, '#board-rails td[data-label="Rail"]');
      assert.deepEqual(rails, ["VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"]);
      const watts = await cellTexts(page, '#board-rails td[data-label="Power"]');
      assert.ok(watts.every((w) => /^\d+\.\d\d W$/.test(w)), watts.join());
      const zones = await cellTexts(page, '#board-temperatures td[data-label="Zone"]');
      assert.ok(zones.includes("gpu-thermal"), zones.join());
      const engines = await cellTexts(page, '#board-engines td[data-label="Engine"]');
      assert.deepEqual(engines, ["nvdec", "nvenc", "nvjpg", "vic"]);
      const states = await cellTexts(page, '#board-engines td[data-label="State"]');
      assert.deepEqual(states, ["on", "on", "off", "on"]);
      assert.deepEqual(page.errors, []);
      await page.screenshot({path: join(artifacts, "jetson-board.png"), fullPage: true});
    });

    it("marks a task's figures as the whole GPU's", async () => {
      await daemon.markTasks(1, "detect");
      await daemon.until("tasks?since=1h", (doc) => doc.tasks.length === 1 && doc.tasks[0].usage,
                         "the task's figures");
      const [task] = (await daemon.api("tasks?since=1h")).tasks;
      assert.equal(task.usage.gpus[0].attribution, "device");
      await page.waitForFunction(() => /whole GPU/.test(document.querySelector("#task-table tbody")?.textContent ?? ""),
                                 null, {timeout: 30000});
      assert.deepEqual(page.errors, []);
    });
  });

  describe("of a daemon on the simulated vGPU host", () => {
    let daemon;
    let page;
    before(async () => {
      daemon = await Daemon.start({scenario: join(source, "examples", "scenarios", "vgpu-host.json"),
                                   epochOffsetSeconds: 60});
      page = await openPage(daemon.url, LAPTOP);
    });
    after(async () => {
      await page?.context().close();
      await daemon?.stop();
    });

    it("shows each VM with its vGPU type, licence and utilisation", async () => {
      const document = await daemon.api("vgpu");
      const instances = document.gpus.flatMap((g) => g.vgpu.instances);
      await page.locator("#vgpu-table tbody tr[data-vm]").nth(instances.length - 1).waitFor({timeout: 30000});
      assert.equal(await page.locator("#vgpu").isVisible(), true);
      const vms = await page.locator("#vgpu-table tbody tr[data-vm]").evaluateAll((rows) => rows.map((r) => r.dataset.vm));
      assert.deepEqual(vms, instances.map((i) => i.vm_id));
      const types = await cellTexts(page, '#vgpu-table td[data-label="Type"]');
      assert.deepEqual(types, instances.map((i) => i.type_name));
      const licences = await cellTexts(page, '#vgpu-table td[data-label="Licence"]');
      assert.deepEqual(licences, ["licensed", "licensed", "unlicensed restricted", "N/A"]);
      const sm = await cellTexts(page, '#vgpu-table td[data-label="SM"]');
      assert.ok(sm.every((v) => /^\d+%$/.test(v)), sm.join());
      // The processes inside the VMs come from the driver's per-process samples, which the
      // daemon drains in its rounds: on a loaded machine a round after the instances' own.
      const inside = ["blender", "ffmpeg", "python3", "chrome"];
      await page.waitForFunction((wanted) => {
        const cells = [...document.querySelectorAll('#vgpu-process-table td[data-label="Name"]')];
        const names = cells.map((cell) => cell.textContent.trim());
        return wanted.every((name) => names.includes(name));
      }, inside, {timeout: 30000}).catch(() => {});
      const names = await cellTexts(page, '#vgpu-process-table td[data-label="Name"]');
      for (const name of inside) assert.ok(names.includes(name), `${name} missing from ${names.join()}`);
      // Both boards host VMs: in use by them, never "free".
      const statuses = await page.locator("#gpu-table tbody tr[data-gpu]").evaluateAll((rows) => rows.map((r) => r.dataset.status));
      assert.deepEqual(statuses, ["vgpu_host", "vgpu_host"]);
      // The status badge of each (a board at its power limit carries "power cap" beside it).
      const badges = await page.locator("#gpu-table tbody tr[data-gpu] .badges > .badge:first-child").allInnerTexts();
      assert.deepEqual(badges.map((b) => b.trim()), ["vGPU host", "vGPU host"]);
      await page.screenshot({path: join(artifacts, "dashboard-vgpu.png"), fullPage: true});
      assert.deepEqual(page.errors, []);
    });

    // One chart per VM's instance from GET /api/v1/vgpu/series: a line per engine, the legend's
    // newest figures those of the series, the scripted ones for the render node.
    it("draws a utilisation chart per VM from the instance's recent series", async () => {
      const document = await daemon.api("vgpu");
      const entries = document.gpus.flatMap((g) => g.vgpu.instances.map((i) => ({gpu: g.index, instance: i})));
      const figures = page.locator("#vgpu-chart-grid figure.chart");
      await figures.nth(entries.length - 1).waitFor({timeout: 30000});
      assert.equal(await figures.count(), entries.length);
      const vms = await figures.evaluateAll((fs) => fs.map((f) => f.dataset.vm));
      assert.deepEqual(vms, entries.map((e) => e.instance.vm_id));
      const titles = await page.locator("#vgpu-chart-grid .u-title").allInnerTexts();
      for (const [i, {gpu, instance}] of entries.entries()) {
        assert.equal(titles[i], `GPU ${gpu} · VM ${instance.vm_id} · ${instance.type_name} (%)`);
      }
      // The VMs that are busy draw lines: SM, frame buffer, encoder, decoder, JPEG, OFA colours.
      const colours = ["#2f7fd1", "#d1452f", "#2c9a4a", "#9b59d0", "#d98a00", "#159aa8"];
      const busy = entries.filter((e) => ["101", "102", "201"].includes(String(e.instance.id)))
        .map((e) => `vgpu/${e.gpu}/${e.instance.uuid}`);
      let pixels = {};
      for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
        pixels = await seriesPixels(page, colours);
        if (busy.every((key) => pixels[key] > 100)) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      for (const key of busy) assert.ok(pixels[key] > 100, `${key}: ${pixels[key]} pixels drawn`);
      const render = entries.find((e) => e.instance.id === 102);
      const series = await daemon.api(`vgpu/series?gpu=${render.gpu}&vgpu=${render.instance.uuid}`);
      assert.ok(series.time.length >= 2, `${series.time.length} records`);
      const legend = page.locator(`#vgpu-chart-grid figure[data-vm="${render.instance.vm_id}"] .u-legend .u-value`);
      const values = await legend.allInnerTexts();
      // Time, then SM, frame buffer, encoder, decoder, JPEG, OFA.
      assert.deepEqual(values.slice(1), ["71 %", "38 %", "0 %", "0 %", "0 %", "0 %"]);
      assert.deepEqual(series.sm_percent.slice(-1), [71]);
      await page.screenshot({path: join(artifacts, "dashboard-vgpu-charts.png"), fullPage: true});
      assert.deepEqual(page.errors, []);
    });
  });

  describe("of a daemon on the simulated H100 in MIG mode", () => {
    const migScenario = JSON.parse(readFileSync(join(source, "examples", "scenarios", "h100-mig.json"), "utf8"));
    const instances = migScenario.devices[0].mig.instances;
    const pidsOn = (gi) => migScenario.processes.filter((p) => p.mig.gpu_instance === gi).map((p) => p.pid);
    let daemon;
    let page;
    before(async () => {
      daemon = await Daemon.start({scenario: join(source, "examples", "scenarios", "h100-mig.json")});
      page = await openPage(daemon.url, LAPTOP);
    });
    after(async () => {
      await page?.context().close();
      await daemon?.stop();
    });

    it("shows every MIG device under its GPU, with N/A and the reason where a utilisation would be", async () => {
      await page.locator("#gpu-table tbody tr.mig-row").nth(instances.length - 1).waitFor();
      const rows = page.locator("#gpu-table tbody tr");
      assert.equal(await rows.count(), 1 + instances.length);
      assert.equal(await rows.nth(0).getAttribute("data-gpu"), "0");
      const gpuUtil = rows.nth(0).locator('td[data-label="Util"]');
      assert.equal(await gpuUtil.innerText(), "N/A");
      assert.match(await gpuUtil.getAttribute("title"), /MIG mode/);
      for (const [i, mig] of instances.entries()) {
        const row = rows.nth(1 + i);
        assert.equal(await row.getAttribute("data-mig"), mig.uuid);
        assert.match(await row.locator('td[data-label="Name"]').innerText(),
                     new RegExp(`${mig.profile.replace(".", "\\.")} · GI ${mig.gpu_instance} CI ${mig.compute_instance}$`));
        const util = row.locator('td[data-label="Util"]');
        assert.equal(await util.innerText(), "N/A");
        assert.equal(await util.getAttribute("title"), "MIG: the driver reports no per-process utilisation");
        assert.equal(await row.locator('td[data-label="PIDs"]').innerText(), pidsOn(mig.gpu_instance).join(", "));
        assert.match(await row.locator('td[data-label="Memory"]').innerText(), / \/ \d+(\.\d+)? GiB$/);
      }
      await page.screenshot({path: join(artifacts, "dashboard-mig.png"), fullPage: true});
    });

    it("shows the SM activity GPM measures, per GPU and per MIG device", async () => {
      // The daemon's second reading (0.5 s apart) gives the first GPM window.
      const cell = (row) => page.locator(`#gpu-table tbody tr${row} td[data-label="SM active (GPM)"]`);
      await cell('[data-gpu="0"]').waitFor({timeout: 30000});
      await page.waitForFunction(() => /%$/.test(document.querySelector('#gpu-table td[data-label="SM active (GPM)"]')?.textContent ?? ""));
      // 90 + 20..70 + 5 % of the instances' processes, capped at 100 for the whole GPU.
      assert.equal(await cell('[data-gpu="0"]').innerText(), "100%");
      const sm = {2: 90, 9: 5, 10: 0};  // constant profiles of h100-mig.json
      for (const mig of instances.filter((m) => m.gpu_instance in sm)) {
        assert.equal(await cell(`[data-mig="${mig.uuid}"]`).innerText(), `${sm[mig.gpu_instance]}%`);
      }
    });

    it("draws the GPM charts of the last hour from the history, with the scenario's figures", async () => {
      // Whole GPU: SM activity capped at 100 %, tensor 100 × tensor_ratio 0.25, DRAM the sum of
      // the instances' memory utilisation (55 + 25 + 2); constant, so every point is the same.
      const scripted = {gpm_sm_activity_percent: 100, gpm_tensor_activity_percent: 25, gpm_dram_bandwidth_percent: 82};
      for (const metric of Object.keys(scripted)) {
        await daemon.until(`history?gpu=0&metric=${metric}&since=1h&step=10s`,
                           (d) => d.avg.filter((v) => v !== null).length >= 2, `two points of ${metric}`);
      }
      const legend = (metric) => page.locator(`figure[data-metric="${metric}"] .u-legend .u-series:nth-child(2) .u-value`);
      for (const [metric, value] of Object.entries(scripted)) {
        await page.waitForFunction((m) => /\d/.test(document.querySelector(`figure[data-metric="${m}"] .u-legend .u-series:nth-child(2) .u-value`)?.textContent ?? ""),
                                   metric, {timeout: 30000});
        assert.equal(await legend(metric).innerText(), `${value} %`, metric);
      }
      const titles = await page.locator('figure.chart[data-metric^="gpm_"] .u-title').allInnerTexts();
      assert.deepEqual(titles, ["GPM SM activity (%)", "GPM tensor activity (%)", "GPM DRAM bandwidth (%)"]);
      const gpmPixels = async () => Object.fromEntries(
        Object.entries(await seriesPixels(page, SERIES_COLOURS)).filter(([metric]) => metric in scripted));
      let gpm = await gpmPixels();
      for (const deadline = Date.now() + 30000; !Object.values(gpm).every((n) => n > 100) && Date.now() < deadline;) {
        await page.waitForTimeout(250);
        gpm = await gpmPixels();
      }
      assert.deepEqual(Object.keys(gpm).sort(), Object.keys(scripted).sort());
      for (const [metric, count] of Object.entries(gpm)) assert.ok(count > 100, `${metric}: ${count} pixels drawn`);
      await page.screenshot({path: join(artifacts, "dashboard-gpm.png"), fullPage: true});
    });

    it("claims no SM figure for processes on MIG devices", async () => {
      const count = migScenario.processes.length;
      await page.locator("#process-table tbody tr[data-pid]").nth(count - 1).waitFor();
      const cells = page.locator('#process-table td[data-label^="SM %"]');
      assert.equal(await cells.count(), count);
      for (let i = 0; i < count; ++i) {
        assert.equal(await cells.nth(i).innerText(), "N/A");
        assert.equal(await cells.nth(i).getAttribute("title"), "MIG: the driver reports no per-process utilisation");
      }
      assert.deepEqual(page.errors, []);
    });

    it("shows the recorded usage of MIG processes as N/A with the reason, never 0 %", async () => {
      const users = [...new Set(migScenario.processes.map((p) => p.host.user))];
      await daemon.until("usage?by=user&since=1h", (d) => users.every((u) => d.rows.some((r) => r.user === u)),
                         "every user in the recorded usage");
      await page.reload();
      await page.locator("#usage-users tbody tr[data-user]").nth(users.length - 1).waitFor({timeout: 30000});
      for (const user of users) {
        for (const label of ["SM % while held", "Energy"]) {
          const cell = page.locator(`#usage-users tr[data-user="${user}"] td[data-label="${label}"]`);
          assert.equal(await cell.innerText(), "N/A", `${user}: ${label}`);
          assert.equal(await cell.getAttribute("title"), "MIG: the driver reports no per-process utilisation");
        }
      }
      assert.deepEqual(page.errors, []);
    });
  });

  // 1,010 tasks of the hour: the page shows 50 at a time, filtered on the server, with the
  // totals of every matching task per name.
  describe("of a daemon with a thousand tasks", () => {
    let daemon;
    let page;
    const BULK = 1005;
    const RARE = 5;

    before(async () => {
      daemon = await Daemon.start({scenario: scenarioPath});
      await daemon.markTasks(BULK, "bulk");
      await daemon.markTasks(RARE, "rare");
      await daemon.until("tasks?since=1h&limit=1", (d) => d.matched === BULK + RARE, "the tasks settled");
      page = await openPage(daemon.url, LAPTOP);
    });
    after(async () => {
      await page?.context().close();
      await daemon?.stop();
    });

    const shownIds = () => page.locator("#task-table tbody tr[data-task]").evaluateAll((trs) => trs.map((r) => Number(r.dataset.task)));

    it("shows the newest 50 tasks, the totals per name, and pages through the rest", async () => {
      await page.waitForFunction(() => /^tasks 1–50 of 1,010/.test(document.querySelector("#task-range").textContent), null, {timeout: 20000});
      const newest = await daemon.api("tasks?since=1h&limit=1");
      const first = await shownIds();
      assert.equal(first.length, 50);
      assert.equal(first[0], newest.tasks[0].task, "newest first");
      const totals = await page.locator("#task-totals tbody tr[data-name]").evaluateAll((rows) =>
        rows.map((r) => [r.dataset.name, r.querySelector('td[data-label="Tasks"]').textContent]));
      assert.deepEqual(totals, [["bulk", "1,005"], ["rare", "5"]]);
      assert.equal(await page.locator("#newer-tasks").isDisabled(), true);

      await page.click("#older-tasks");
      await page.waitForFunction(() => /^tasks 51–100 of 1,010/.test(document.querySelector("#task-range").textContent));
      const second = await shownIds();
      assert.equal(second.length, 50);
      assert.ok(second.every((id) => !first.includes(id)), "a page of other tasks");
      assert.ok(Math.max(...second) < Math.min(...first), "older ones");
      await page.click("#newer-tasks");
      await page.waitForFunction(() => /^tasks 1–50 of/.test(document.querySelector("#task-range").textContent));
      assert.deepEqual(await shownIds(), first);
      // A page of 50 tasks, not a thousand: the section stays short.
      const height = await page.locator("#tasks").evaluate((s) => s.getBoundingClientRect().height);
      assert.ok(height < 4000, `the tasks section is ${height} px tall`);
    });

    it("filters on the server by name, kept in the URL, and by a name picked in the totals", async () => {
      await page.fill("#task-name", "rare");
      await page.press("#task-name", "Enter");
      await page.waitForFunction(() => /^tasks 1–5 of 5 /.test(document.querySelector("#task-range").textContent));
      assert.equal((await shownIds()).length, RARE);
      assert.equal(new URL(page.url()).searchParams.get("task-name"), "rare");
      assert.deepEqual(await page.locator("#task-totals tbody tr[data-name]").evaluateAll((r) => r.map((x) => x.dataset.name)), ["rare"]);
      await page.fill("#task-name", "");
      await page.press("#task-name", "Enter");
      await page.locator('#task-totals tr[data-name="bulk"] button').waitFor();
      await page.click('#task-totals tr[data-name="bulk"] button');
      await page.waitForFunction(() => /^tasks 1–50 of 1,005 /.test(document.querySelector("#task-range").textContent));
      assert.equal(await page.locator("#task-name").inputValue(), "bulk");
      await page.fill("#task-label", "not-a-label");
      await page.press("#task-label", "Enter");
      await page.waitForFunction(() => /label/.test(document.querySelector("#task-table tbody").textContent));
      assert.equal(await page.locator("#task-table tbody tr[data-task]").count(), 0);
      assert.deepEqual(page.errors, []);
    });
  });

  describe("of a daemon that requires a token", () => {
    const TOKEN = "s3cret-token-for-the-browser-test";
    let daemon;
    before(async () => { daemon = await Daemon.start({scenario: scenarioPath, token: TOKEN}); });
    after(async () => { await daemon?.stop(); });

    it("serves the page without the token but not the data", async () => {
      assert.equal((await fetch(daemon.url)).status, 200);
      assert.equal((await fetch(`${daemon.url}api/v1/status`)).status, 401);
    });

    it("asks for the token once per tab, says when it is wrong, and sends it as a bearer token", async () => {
      const page = await openPage(daemon.url, LAPTOP);
      const dialog = page.locator("#token-dialog");
      await dialog.waitFor({state: "visible"});
      await page.fill("#token-input", "wrong");
      await page.click("#token-form button");
      await page.locator("#token-error").waitFor({state: "visible"});
      await page.screenshot({path: join(artifacts, "dashboard-token.png")});
      await page.fill("#token-input", TOKEN);
      await page.click("#token-form button");
      await page.locator("#gpu-table tbody tr[data-gpu]").first().waitFor();
      assert.equal(await dialog.isVisible(), false);
      assert.equal(await page.evaluate(() => sessionStorage.getItem("gpumeter.token")), TOKEN);
      await page.reload();
      await page.locator("#gpu-table tbody tr[data-gpu]").first().waitFor();
      assert.equal(await dialog.isVisible(), false);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });
  });
});
