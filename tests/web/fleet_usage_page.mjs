// SPDX-License-Identifier: MIT
// The master's page in Prometheus mode, in Chromium: its Usage section shows the fleet's usage
// (GET /api/v1/usage from the Prometheus' ledger counters) rather than pointing at each node.
// Prints {title, hint, users: {user: the GPU-hours cell}, quota: {user: the quota cell}} as JSON
// on stdout for tests/integration/fleet_report_test.py, which compares them with the fleet
// report; saves a screenshot of the section to the path given second. Exits 77 without
// Chromium or playwright-core.
//
//   node tests/web/fleet_usage_page.mjs MASTER_URL [SCREENSHOT.png]
import {launchBrowser, SKIP} from "./browser.mjs";

const [url, screenshot] = process.argv.slice(2);
const {browser, why} = await launchBrowser();
if (!browser) {
  console.error(`skipped: ${why}`);
  process.exit(SKIP);
}
try {
  const page = await (await browser.newContext({viewport: {width: 1366, height: 850}})).newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.locator("#usage-users tbody tr[data-user]").first().waitFor({timeout: 60000});
  const cells = (label) => page.locator("#usage-users tbody tr[data-user]").evaluateAll(
    (rows, name) => Object.fromEntries(rows.map((row) => [
      row.dataset.user, row.querySelector(`td[data-label="${name}"]`)?.innerText ?? null])), label);
  const result = {
    title: await page.locator("#usage-title").innerText(),
    hint: await page.locator("#usage-body .hint").innerText(),
    users: await cells("GPU-hours"),
    quota: await cells("Quota"),
    periods: await page.locator("#usage-periods tbody tr").count(),
    errors,
  };
  if (screenshot) await page.locator("#usage").screenshot({path: screenshot});
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
}
