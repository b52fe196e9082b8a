// SPDX-License-Identifier: MIT
// What the process table shows: one user's processes or everyone's, in the order picked (GPU,
// user, memory held, SM use), both kept in the page's URL (?user=ada&sort=memory), so that a
// link shows the same. Idle holders (memory held, SM under 1 % over the window) are marked by
// the table itself.
import {el} from "./dom.js";
import {setUrlParam, urlParam} from "./url-state.js";

export const SORTS = [
  {value: "gpu", label: "GPU"}, {value: "user", label: "user"},
  {value: "memory", label: "memory held"}, {value: "sm", label: "SM use"},
];

export class ProcessView {
  constructor(userPicker, sortPicker, onChange) {
    this.userPicker = userPicker;
    this.sortPicker = sortPicker;
    this.wantedUser = urlParam("user") ?? "";
    sortPicker.replaceChildren(...SORTS.map((s) => el("option", {value: s.value}, s.label)));
    const sort = urlParam("sort");
    sortPicker.value = SORTS.some((s) => s.value === sort) ? sort : "gpu";
    userPicker.addEventListener("change", () => {
      this.wantedUser = userPicker.value;
      setUrlParam("user", userPicker.value);
      onChange();
    });
    sortPicker.addEventListener("change", () => {
      setUrlParam("sort", sortPicker.value, "gpu");
      onChange();
    });
  }

  // The users of the latest status document, for the picker; a user asked for in the URL
  // stays chosen while they have no process.
  setUsers(status) {
    const users = new Set();
    for (const gpu of status?.gpus ?? []) {
      for (const process of gpu.processes ?? []) if (process.user) users.add(process.user);
    }
    if (this.wantedUser) users.add(this.wantedUser);
    const options = ["", ...[...users].sort()];
    if (options.join("\n") !== [...this.userPicker.options].map((o) => o.value).join("\n")) {
      this.userPicker.replaceChildren(...options.map((u) => el("option", {value: u}, u || "all users")));
    }
    this.userPicker.value = this.wantedUser;
  }

  // rows: [{gpu, process, sm}] where sm is the SM percent over the window, or null/undefined.
  apply(rows) {
    const chosen = this.wantedUser ? rows.filter((r) => r.process.user === this.wantedUser) : rows;
    const by = {
      gpu: (a, b) => a.gpu.index - b.gpu.index || a.process.pid - b.process.pid,
      user: (a, b) => (a.process.user ?? "\uffff").localeCompare(b.process.user ?? "\uffff") || a.gpu.index - b.gpu.index,
      memory: (a, b) => (b.process.used_memory_bytes ?? -1) - (a.process.used_memory_bytes ?? -1),
      sm: (a, b) => (b.sm ?? -1) - (a.sm ?? -1),
    }[this.sortPicker.value] ?? (() => 0);
    return [...chosen].sort(by);
  }
}
