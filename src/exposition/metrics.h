// SPDX-License-Identifier: MIT
// gpumeter's Prometheus exposition (docs/metrics.md): per-GPU gauges and counters, per-process
// and per-user GPU use, and the sampler's own health, rendered from one snapshot. Rendering
// reads only what it is given: no source is called.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <map>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/model.h"
#include "core/sampler.h"

namespace gpumeter::exposition {

// How many per-process series the exposition carries: one per process and GPU costs a series
// in every Prometheus that scrapes it, so they are bounded.
enum class ProcessSeries : std::uint8_t {
  top,    // the `top` processes holding the most GPU memory, plus the per-user aggregates
  users,  // per-user aggregates only
  none,   // neither (no user names or commands leave the machine)
};

struct ProcessLimit {
  ProcessSeries series = ProcessSeries::top;
  std::size_t top = 20;  // with ProcessSeries::top
};

// "top:N" (N from 1 to 10000), "users" or "none", as `--metrics-processes` takes it.
// Errors: invalid_input, "expected top:N (N from 1 to 10000), users or none, not '...'".
std::expected<ProcessLimit, Error> parse_process_limit(std::string_view text);

// "top:20", "users", "none".
std::string to_string(const ProcessLimit& limit);

struct MetricsOptions {
  ProcessLimit processes;
  // The sampler's counters (rounds, source calls and errors, series bytes). A one-shot print
  // leaves them out: its counters would start again from zero at every run.
  bool sampler_metrics = true;
};

// Recent SM use of processes, by GPU index and then pid, as a ratio of the window (0-1 per
// process). A GPU that is absent has no figures (its per-process utilization was not read
// over the window); a process absent under a GPU that is present was idle there.
using ProcessActivity = std::map<std::uint32_t, std::map<Pid, double>>;

// The exposition of `snapshot` and `stats`, in the text format version 0.0.4. Values the
// snapshot lacks (unsupported, unreadable, a lost GPU's readings) are left out, never written
// as 0. Per-process SM ratios come from `activity` (none when it is empty).
std::string render_metrics(const Snapshot& snapshot, const SamplerStats& stats,
                           const MetricsOptions& options, const ProcessActivity& activity = {});

}  // namespace gpumeter::exposition
