// SPDX-License-Identifier: MIT
#include "cli/limit_options.h"

#include <fmt/format.h>

namespace gpumeter::cli {
namespace {

// --cpus or --cpu-percent, whichever was given (CLI11 refuses both). A percentage is of each
// CPU the job may use: those of its cpuset, when it has one, else the online ones.
std::expected<std::optional<host::CpuQuota>, Error> cpu_quota(const LimitTexts& texts,
                                                              const std::vector<unsigned>& online,
                                                              const host::Limits& limits) {
  if (texts.cpus.empty() && texts.cpu_percent.empty()) return std::nullopt;
  if (!texts.cpus.empty()) {
    auto quota = host::quota_for_cpus(texts.cpus, static_cast<unsigned>(online.size()));
    if (!quota) return std::unexpected(invalid_option("--cpus", quota.error()));
    return *quota;
  }
  std::size_t usable = online.size();
  if (limits.cpuset) usable = host::parse_cpu_list(*limits.cpuset).value_or(online).size();
  auto quota = host::quota_for_cpu_percent(texts.cpu_percent, static_cast<unsigned>(usable));
  if (!quota) return std::unexpected(invalid_option("--cpu-percent", quota.error()));
  return *quota;
}

}  // namespace

LimitOptionList add_limit_options(CLI::App& command, LimitTexts& texts) {
  LimitOptionList list;
  list.cpus = command
                  .add_option("--cpus", texts.cpus,
                              "Limit CPU time to N CPUs' worth, counted over all CPUs together "
                              "(1.5: cpu.max \"150000 100000\")")
                  ->option_text("N");
  list.cpu_percent =
      command
          .add_option("--cpu-percent", texts.cpu_percent,
                      "Limit CPU time to P percent of EACH CPU it may use: those of --cpuset, "
                      "else the online ones (50 on 16 CPUs = 8 CPUs' worth); cpu.max itself is "
                      "not per CPU")
          ->option_text("P");
  list.cpus->excludes(list.cpu_percent);
  list.cpuset =
      command.add_option("--cpuset", texts.cpuset, "Run on these CPUs only: 0-3,8 (online ones)")
          ->option_text("LIST");
  list.memory = command
                    .add_option("--memory", texts.memory,
                                "Limit memory to SIZE: 512M, 4G (K, M, G, T: powers of 1024)")
                    ->option_text("SIZE");
  return list;
}

std::expected<host::Limits, Error> resolve_limits(const LimitTexts& texts,
                                                  const std::filesystem::path& root) {
  host::Limits limits;
  std::vector<unsigned> online;
  if (!texts.cpus.empty() || !texts.cpu_percent.empty() || !texts.cpuset.empty()) {
    auto read = host::online_cpus(root);
    if (!read) return std::unexpected(Error{ErrorCode::io, read.error()});
    online = std::move(*read);
  }
  if (!texts.cpuset.empty()) {
    auto cpus = host::cpuset_within(texts.cpuset, online);
    if (!cpus) return std::unexpected(invalid_option("--cpuset", cpus.error()));
    limits.cpuset = std::move(*cpus);
  }
  auto quota = cpu_quota(texts, online, limits);
  if (!quota) return std::unexpected(std::move(quota.error()));
  limits.cpu = *quota;
  if (!texts.memory.empty()) {
    auto bytes = host::parse_memory_size(texts.memory);
    if (!bytes) return std::unexpected(invalid_option("--memory", bytes.error()));
    limits.memory_bytes = *bytes;
  }
  return limits;
}

void add_limit_command_options(CLI::App& limit, LimitOptions& options) {
  limit.add_option("--pid", options.pid, "The process to limit, with every process below it")
      ->required()
      ->option_text("PID")
      ->check(CLI::PositiveNumber);
  const LimitOptionList list = add_limit_options(limit, options.limits);
  limit
      .add_flag("--clear", options.clear,
                "Move the processes back to the cgroups they came from and remove the group")
      ->excludes(list.cpus)
      ->excludes(list.cpu_percent)
      ->excludes(list.cpuset)
      ->excludes(list.memory);
  limit.add_flag("--json", options.json, "Print JSON for scripts");
  limit
      .add_option("--state-dir", options.state_dir,
                  "Directory that records where the processes came from (default: "
                  "/var/lib/gpumeter for root, $XDG_STATE_HOME/gpumeter for others)")
      ->option_text("DIR");
}

}  // namespace gpumeter::cli
