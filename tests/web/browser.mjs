// SPDX-License-Identifier: MIT
// Debian's Chromium, headless, driven by playwright-core from web/node_modules.
import {existsSync} from "node:fs";
import {createRequire} from "node:module";
import {join} from "node:path";

export const SKIP = 77;  // CTest's SKIP_RETURN_CODE for this test

const executable = process.env.GPUMETER_CHROMIUM ?? "/usr/bin/chromium";

// The browser, or null with the reason it cannot run here.
export async function launchBrowser() {
  const web = join(process.env.GPUMETER_SOURCE_DIR, "web");
  if (!existsSync(executable)) return {why: `no Chromium at ${executable} (scripts/install-deps.sh installs it)`};
  if (!existsSync(join(web, "node_modules", "playwright-core"))) {
    return {why: "web/node_modules has no playwright-core (scripts/install-deps.sh runs npm ci in web/)"};
  }
  const {chromium} = createRequire(join(web, "package.json"))("playwright-core");
  // Chromium's sandbox needs user namespaces, which root in a container often lacks.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return {browser: await chromium.launch({executablePath: executable, headless: true, args})};
}
