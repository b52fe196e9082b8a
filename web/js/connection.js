// SPDX-License-Identifier: MIT
// The connection line in the header: when the data was last read, or since when the server
// cannot be reached (the page then greys out what it shows, which is the last data it got).
import {clockTime} from "./format.js";

export class Connection {
  constructor(line) {
    this.line = line;
    this.lastGood = null;
    this.failingSince = null;
  }

  ok() {
    this.lastGood = new Date();
    this.failingSince = null;
    document.body.classList.remove("stale");
    this.line.className = "connection ok";
    this.line.textContent = `live, updated ${clockTime(this.lastGood)}`;
  }

  failed(error) {
    this.failingSince ??= new Date();
    document.body.classList.add("stale");
    this.line.className = "connection failing";
    const shown = this.lastGood ? `showing the data of ${clockTime(this.lastGood)}` : "no data yet";
    const what = error.kind === "no_snapshot" ? "waiting for the first reading" :
                 error.kind === "unreachable" ? "server unreachable" : "server error";
    this.line.textContent = `${what} since ${clockTime(this.failingSince)}: ${error.message}; ${shown}; retrying`;
  }
}
