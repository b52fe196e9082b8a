// SPDX-License-Identifier: MIT
// Idle holders: processes that kept GPU memory while leaving the SMs (almost) unused for a
// long stretch — the notebook left open over the weekend. Found in the per-minute detail, so
// only within its retention (30 days by default).
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model.h"
#include "store/history.h"
#include "store/store.h"

namespace gpumeter::store {

struct IdleQuery {
  TimeUs since_us = 0;  // [since, until)
  TimeUs until_us = 0;
  // A minute counts as idle when the process held memory in it and its SM use, over the time
  // it held memory, was at most this percent.
  double max_sm_percent = 1.0;
  TimeUs min_duration_us = 3'600'000'000;  // report spells at least this long (1 hour)
  std::optional<std::string> user;
};

// An unbroken run of idle minutes of one process on one GPU.
struct IdleSpell {
  LedgerRow process;                    // the whole ledger row, for who, what and where
  TimeUs begin_us = 0;                  // the first idle minute's start
  TimeUs end_us = 0;                    // the last idle minute's end
  double held_seconds = 0;              // held within the spell
  double sm_busy_seconds = 0;           // used within the spell
  std::uint64_t peak_memory_bytes = 0;  // the most it held during the spell
};

// Spells of idle minutes in the window, at least min_duration_us long, longest first. A
// minute in which the process did not hold memory, or used the SMs more, or whose SM use is
// unknown (a GPU in MIG mode), ends a spell.
// Errors: invalid_input for an empty window or a negative threshold; io from SQLite.
std::expected<std::vector<IdleSpell>, Error> idle_holders(Store& store, const IdleQuery& query);

}  // namespace gpumeter::store
