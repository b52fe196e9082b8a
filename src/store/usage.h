// SPDX-License-Identifier: MIT
// Reports: who used how much GPU over a window, grouped by any combination of host, user, GPU,
// process, container and one calendar period (hour, day or month).
//
// The figures come from the per-process detail tiers: whole hours of the window from the
// per-hour rows, its partial first and last hours from the per-minute rows while those are
// kept (30 days by default), else from the hour rows. A row that straddles an edge of the
// window is prorated by the fraction of its bucket inside the window, as if use were even
// within the bucket; peaks are not prorated (a straddling bucket's peak counts whole). So
// figures are exact for windows on whole minutes (whole hours once minutes are pruned), and
// periods are attributed by the bucket's start. docs/store.md has the details.
#pragma once

#include <algorithm>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model.h"
#include "store/store.h"

namespace gpumeter::store {

enum class GroupBy : std::uint8_t { host, user, gpu, process, container, hour, day, month };

struct UsageQuery {
  TimeUs since_us = 0;  // [since, until)
  TimeUs until_us = 0;
  std::vector<GroupBy> group_by;  // none: one row for everything
  // Hours, days and months in the local time zone (TZ) rather than UTC. Under a zone whose
  // offset is not whole hours, an hour row lies across two local periods and counts in the
  // one its start falls in.
  bool local_time = false;
  std::optional<std::string> user;  // only this user's processes
  std::optional<std::string> host;  // only this host's
  // A page of the rows, in their order: at most `limit` of them (all when absent), after the
  // first `offset`. The aggregation still runs over the whole window; only the page is kept.
  std::optional<std::size_t> limit;
  std::size_t offset = 0;
};

struct UsageRow {
  // The group's keys: those grouped by are set, the rest stay empty. An unknown user, or a
  // process outside any container, is the empty string.
  std::string host;
  std::string user;
  std::string gpu_uuid;
  std::optional<std::uint32_t> gpu_index;
  std::optional<Pid> pid;
  std::optional<TimeUs> process_start_time_us;
  std::string command;
  std::string container;  // "runtime:id"
  std::string period;     // "2026-01-31T13" (hour), "2026-01-31" (day), "2026-01" (month)
  std::optional<TimeUs> period_start_us;

  double gpu_hours = 0;  // hours of holding memory on a GPU
  // Σ SM percent / 100 × hours over the held hours whose SM use is known; absent when none is
  // (every process of the group on a GPU in MIG mode).
  std::optional<double> sm_busy_hours = 0.0;
  // 100 × sm_busy_hours / sm_known_hours(); absent when no held hour's SM use is known.
  std::optional<double> sm_percent_while_held;
  // The processes' share of GPU energy, split by SM use: over the known part only, like
  // sm_busy_hours, and absent with it.
  std::optional<double> energy_kwh = 0.0;
  std::uint64_t peak_memory_bytes = 0;  // the highest any one process held on one GPU
  std::int64_t processes = 0;           // distinct processes (host, pid, start time)
  // Held hours whose SM use (and energy share) the driver did not report, and why ("mig": a GPU
  // in MIG mode keeps no per-process utilisation); 0 and absent when all of it is known.
  double sm_unknown_hours = 0;
  std::optional<std::string> sm_unknown_reason;

  double sm_known_hours() const noexcept { return std::max(gpu_hours - sm_unknown_hours, 0.0); }
};

// Known held time below this is rounding left over from subtracting the unknown part.
inline constexpr double kNegligibleHours = 1e-9;

// One row per group, ordered by the group keys in the order given.
// Errors: invalid_input when the window is empty or more than one of hour, day and month is
// asked for; io from SQLite.
std::expected<std::vector<UsageRow>, Error> usage(Store& store, const UsageQuery& query);

}  // namespace gpumeter::store
