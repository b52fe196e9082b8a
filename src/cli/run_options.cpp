// SPDX-License-Identifier: MIT
#include "cli/run_options.h"

#include <fmt/format.h>

#include "cli/duration_option.h"
#include "core/duration.h"
#include "core/sampler.h"

namespace gpumeter::cli {

void add_run_options(CLI::App& run, RunOptions& options) {
  run.add_option("--json", options.json, "Also write the summary as JSON to FILE")
      ->option_text("FILE");
  run.add_option("--interval", options.interval,
                 "Sample every DURATION: 100ms, 1s, ... (at least 100ms; default 1s)")
      ->option_text("DURATION")
      ->check(duration_validator(kMinSamplerInterval));
  const LimitOptionList limits = add_limit_options(run, options.limits);
  run.add_flag("--no-cgroup", options.no_cgroup,
               "Make no cgroup; follow the processes by their parent links")
      ->excludes(limits.cpus)
      ->excludes(limits.cpu_percent)
      ->excludes(limits.cpuset)
      ->excludes(limits.memory);
  run.add_option("command", options.command,
                 "The command and its arguments; put -- before a command that has options")
      ->required()
      ->option_text("-- CMD [ARGS...]");
}

std::expected<RunSettings, Error> resolve_run_options(const RunOptions& options,
                                                      const std::filesystem::path& root) {
  RunSettings settings;
  settings.command = options.command;
  settings.json = options.json;
  settings.cgroup = !options.no_cgroup;
  const auto interval = parse_duration(options.interval);
  if (!interval || *interval < kMinSamplerInterval)
    return std::unexpected(invalid_option("--interval", "at least 100ms"));
  settings.interval = *interval;
  auto limits = resolve_limits(options.limits, root);
  if (!limits) return std::unexpected(std::move(limits.error()));
  settings.limits = std::move(*limits);
  return settings;
}

}  // namespace gpumeter::cli
