// SPDX-License-Identifier: MIT
// A real `gpumeter daemon --simulate SCENARIO` for the browser tests: its own state directory
// (history database) and task socket in a temporary directory, HTTP on a free loopback port.
import {spawn} from "node:child_process";
import {once} from "node:events";
import {mkdtempSync, rmSync, writeFileSync} from "node:fs";
import {createConnection, createServer} from "node:net";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {createInterface} from "node:readline";

const binary = process.env.GPUMETER_BIN;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Daemon {
  // scenario: a path; epochOffsetSeconds: how long ago the scenario's t = 0 was; token: a
  // bearer token the server then requires; jetson: the scenario is a Jetson board's
  // (--simulate-jetson).
  static async start({scenario, epochOffsetSeconds = 0, token = null, extraArgs = [], jetson = false}) {
    const dir = mkdtempSync(join(tmpdir(), "gpumeter-browser-"));
    const port = await freePort();
    const args = [jetson ? "--simulate-jetson" : "--simulate", scenario, "daemon", "--listen", `127.0.0.1:${port}`,
                  "--state-dir", join(dir, "state"), "--socket", join(dir, "gpumeter.sock"),
                  "--interval", "500ms", "--record-interval", "1s", ...extraArgs];
    if (token) {
      writeFileSync(join(dir, "token"), `${token}\n`, {mode: 0o600});
      args.push("--token-file", join(dir, "token"));
    }
    const epochUs = BigInt(Date.now() - epochOffsetSeconds * 1000) * 1000n;
    const env = {...process.env, GPUMETER_SIM_EPOCH_US: String(epochUs)};
    const child = spawn(binary, args, {env, stdio: ["ignore", "pipe", "pipe"]});
    const daemon = new Daemon(child, dir, port, token);
    await daemon.ready();
    return daemon;
  }

  constructor(child, dir, port, token) {
    this.child = child;
    this.dir = dir;
    this.url = `http://127.0.0.1:${port}/`;
    this.token = token;
    this.socket = join(dir, "gpumeter.sock");
    this.output = "";
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({code, signal})));
    for (const stream of [child.stdout, child.stderr]) stream.on("data", (d) => { this.output += d; });
  }

  async ready() {
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`the daemon exited: ${this.output}`);
      try {
        if ((await fetch(`${this.url}healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`the daemon did not answer /healthz within 20 s: ${this.output}`);
  }

  // The parsed document of GET api/v1/<path>, with the token when there is one.
  async api(path) {
    const headers = this.token ? {Authorization: `Bearer ${this.token}`} : {};
    const response = await fetch(`${this.url}api/v1/${path}`, {headers});
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.json();
  }

  // Marks `count` tasks of this process on the task socket, each begun and ended at once,
  // a few hundred a second: the daemon holds at most 1,024 of a process's tasks open or
  // settling, and settles them a round after their end.
  async markTasks(count, name = "bulk") {
    const conn = createConnection(this.socket);
    await once(conn, "connect");
    const replies = createInterface({input: conn})[Symbol.asyncIterator]();
    const ask = async (request) => {
      conn.write(`${JSON.stringify(request)}\n`);
      const reply = JSON.parse((await replies.next()).value);
      if (!reply.ok) throw new Error(`${request.op}: ${JSON.stringify(reply)}`);
      return reply;
    };
    for (let n = 1; n <= count; n++) {
      const {task} = await ask({op: "begin", name});
      await ask({op: "end", task, wait: false});
      if (n % 500 === 0) await sleep(1500);
    }
    conn.end();
  }

  // Polls until `test(document of path)` holds.
  async until(path, test, what, seconds = 60) {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const doc = await this.api(path).catch(() => null);
      if (doc && test(doc)) return doc;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
      await sleep(500);
    }
  }

  async stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    const result = await this.exited;
    rmSync(this.dir, {recursive: true, force: true});
    return result;
  }
}
