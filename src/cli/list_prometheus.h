// `gpumeter list --prometheus`: the Prometheus exposition printed once, without a daemon, for
// node_exporter's textfile collector run from a timer (docs/metrics.md).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <expected>
#include <string>

#include "cli/session.h"
#include "core/error.h"
#include "net/metrics.h"

namespace gpumeter::cli {

// How long the one-shot exposition samples: per-process SM ratios need two readings of the
// driver's per-process samples, this far apart.
inline constexpr std::chrono::milliseconds kOneShotSampling{1000};

// A CLI11 check of a `--metrics-processes` value (net::parse_process_limit).
CLI::Validator process_limit_validator();

// Two sampling rounds `kOneShotSampling` apart on the session's sources, and the exposition of
// the second (GPU, process and user families and build info; no sampler counters, which would
// restart at every run). Errors: the GPU source could not be read.
std::expected<std::string, Error> prometheus_once(Session& session, const net::ProcessLimit& limit);

}  // namespace gpumeter::cli
