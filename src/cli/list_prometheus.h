// SPDX-License-Identifier: MIT
// `gpumeter list --prometheus`: the Prometheus exposition printed once, without a daemon, for
// node_exporter's textfile collector run from a timer (docs/metrics.md).
#pragma once

#include <chrono>
#include <expected>
#include <string>

#include "cli/session.h"
#include "core/error.h"
#include "exposition/metrics.h"

namespace gpumeter::cli {

// How long the one-shot exposition samples. Per-process SM ratios need two readings of the
// driver's per-process samples, and count only periods the driver has surely reported: up to
// one driver period (1 s until one is measured) before the second reading. Two seconds leave
// at least one second to measure, even on a GPU whose processes are all idle.
inline constexpr std::chrono::milliseconds kOneShotSampling{2000};

// Two sampling rounds `kOneShotSampling` apart on the session's sources, and the exposition of
// the second (GPU, process and user families and build info; no sampler counters, which would
// restart at every run). Errors: the GPU source could not be read.
std::expected<std::string, Error> prometheus_once(Session& session,
                                                  const exposition::ProcessLimit& limit);

}  // namespace gpumeter::cli
