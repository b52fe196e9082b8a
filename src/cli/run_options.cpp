#include "cli/run_options.h"

#include <fmt/format.h>

#include "cli/daemon_options.h"
#include "core/sampler.h"

namespace gpumeter::cli {
namespace {

std::unexpected<Error> bad(std::string_view option, std::string_view why) {
  return std::unexpected(Error{ErrorCode::invalid_input, fmt::format("{}: {}", option, why)});
}

// --cpus or --cpu-percent, whichever was given (CLI11 refuses both).
std::expected<std::optional<host::CpuQuota>, Error> cpu_quota(const RunOptions& options,
                                                              const std::vector<unsigned>& online) {
  if (options.cpus.empty() && options.cpu_percent.empty()) return std::nullopt;
  const auto count = static_cast<unsigned>(online.size());
  const bool by_count = !options.cpus.empty();
  auto quota = by_count ? host::quota_for_cpus(options.cpus, count)
                        : host::quota_for_cpu_percent(options.cpu_percent, count);
  if (!quota) return bad(by_count ? "--cpus" : "--cpu-percent", quota.error());
  return *quota;
}

std::expected<void, Error> resolve_limits(const RunOptions& options,
                                          const std::filesystem::path& root, host::Limits& limits) {
  const bool cpu_limits =
      !options.cpus.empty() || !options.cpu_percent.empty() || !options.cpuset.empty();
  std::vector<unsigned> online;
  if (cpu_limits) {
    auto read = host::online_cpus(root);
    if (!read) return std::unexpected(Error{ErrorCode::io, read.error()});
    online = std::move(*read);
  }
  auto quota = cpu_quota(options, online);
  if (!quota) return std::unexpected(std::move(quota.error()));
  limits.cpu = *quota;
  if (!options.cpuset.empty()) {
    auto cpus = host::cpuset_within(options.cpuset, online);
    if (!cpus) return bad("--cpuset", cpus.error());
    limits.cpuset = std::move(*cpus);
  }
  if (!options.memory.empty()) {
    auto bytes = host::parse_memory_size(options.memory);
    if (!bytes) return bad("--memory", bytes.error());
    limits.memory_bytes = *bytes;
  }
  return {};
}

}  // namespace

void add_run_options(CLI::App& run, RunOptions& options) {
  run.add_option("--json", options.json, "Also write the summary as JSON to FILE")
      ->option_text("FILE");
  run.add_option("--interval", options.interval,
                 "Sample every DURATION: 100ms, 1s, ... (at least 100ms; default 1s)")
      ->option_text("DURATION")
      ->check(duration_validator(kMinSamplerInterval));
  CLI::Option* cpus =
      run.add_option("--cpus", options.cpus,
                     "Limit CPU time to N CPUs' worth, counted over all CPUs together "
                     "(1.5: cpu.max \"150000 100000\")")
          ->option_text("N");
  CLI::Option* percent =
      run.add_option("--cpu-percent", options.cpu_percent,
                     "Limit CPU time to P percent of EACH online CPU (50 on 16 CPUs = 8 CPUs' "
                     "worth); cpu.max itself is not per CPU")
          ->option_text("P");
  cpus->excludes(percent);
  CLI::Option* cpuset =
      run.add_option("--cpuset", options.cpuset, "Run on these CPUs only: 0-3,8 (online ones)")
          ->option_text("LIST");
  CLI::Option* memory =
      run.add_option("--memory", options.memory,
                     "Limit memory to SIZE: 512M, 4G (K, M, G, T: powers of 1024)")
          ->option_text("SIZE");
  run.add_flag("--no-cgroup", options.no_cgroup,
               "Make no cgroup; follow the processes by their parent links")
      ->excludes(cpus)
      ->excludes(percent)
      ->excludes(cpuset)
      ->excludes(memory);
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
  const auto interval = parse_interval(options.interval);
  if (!interval || *interval < kMinSamplerInterval) return bad("--interval", "at least 100ms");
  settings.interval = *interval;
  if (auto limits = resolve_limits(options, root, settings.limits); !limits) {
    return std::unexpected(std::move(limits.error()));
  }
  return settings;
}

}  // namespace gpumeter::cli
