// SPDX-License-Identifier: MIT
// `gpumeter report --idle`: processes that held GPU memory while leaving the GPU idle, from the
// store's idle spells (store/idle.h), as a table or CSV (JSON: cli/report_json.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/idle.h"

namespace gpumeter::cli {

struct IdleReport {
  std::string database;
  store::IdleQuery query;
  std::vector<store::IdleSpell> spells;  // longest first
};

// How a spell ended, as of the window's end:
//  - still_idle: it lasts up to the process's last record (or the window's end), and the
//    process had not exited by then;
//  - exited: it lasted until the process exited;
//  - ended: the process used the GPU again, or released its memory.
enum class IdleState : std::uint8_t { still_idle, exited, ended };

IdleState idle_state(const store::IdleSpell& spell, TimeUs until_us);
// "still_idle", "exited", "ended" (CSV and JSON; tables print "still idle").
std::string_view to_string(IdleState state);

// A header (the window, the thresholds, the history file) and one line per spell: USER, PID,
// COMMAND, GPU, MEMORY (the most held during the spell), IDLE SINCE (local time), FOR, STATE;
// "still idle" is red when `color`. No spell: "no process held a GPU idle ...".
std::string render_idle_table(const IdleReport& report, bool color);

// One line per spell, keys as in the JSON (docs/report.md).
std::string render_idle_csv(const IdleReport& report);

}  // namespace gpumeter::cli
