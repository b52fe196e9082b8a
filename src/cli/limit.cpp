// SPDX-License-Identifier: MIT
// `gpumeter limit --pid PID [LIMITS] | --clear`: CPU and memory limits for a process that
// already runs, and the whole tree below it (docs/limit.md).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "cli/limit_options.h"
#include "cli/limit_output.h"
#include "cli/limit_process.h"
#include "cli/limit_state.h"
#include "host/cgroup_fs.h"
#include "host/limit_cgroup.h"
#include "host/process_tree.h"

namespace gpumeter::cli {
namespace {

using Failed = std::unexpected<Error>;

struct Limiter {
  const LimitOptions& options;
  std::filesystem::path records;
  std::ostream& out;
  host::SystemCgroupFs fs;
};

Error prefixed(const Error& error) {
  if (error.message.starts_with("gpumeter limit")) return error;
  return Error{error.code, fmt::format("gpumeter limit: {}", error.message)};
}

Error no_group(std::string_view why) {
  return Error{ErrorCode::no_permission,
               fmt::format("gpumeter limit: no cgroup with the limits could be made: {}. Run as "
                           "root, or where a cgroup is delegated to you, e.g. `systemd-run "
                           "--user --scope -p Delegate=yes gpumeter limit ...`",
                           why)};
}

std::expected<host::LimitedGroup, Error> make_group(Limiter& limiter, const host::Limits& limits,
                                                    const std::vector<Pid>& pids) {
  const auto ours = host::read_cgroup_layout("/");
  if (!ours) return Failed(no_group(ours.error()));
  const host::CgroupRequest request{.name = limit_group_name(limiter.options.pid),
                                    .limits = limits,
                                    .self = static_cast<Pid>(::getpid())};
  const auto where = [](Pid pid) { return host::read_cgroup_layout("/", std::to_string(pid)); };
  // The tree as it is now on each look; we stay out of it, we exit in a moment (PID may be
  // our own ancestor, a shell).
  const auto tree = [&pids] {
    std::vector<Pid> now = pids;
    for (const Pid pid : host::descendants("/", pids.front())) {
      if (pid != static_cast<Pid>(::getpid()) && std::ranges::find(now, pid) == now.end()) {
        now.push_back(pid);
      }
    }
    return now;
  };
  auto group = host::limit_processes(limiter.fs, *ours, request, tree, where);
  if (!group) return Failed(no_group(group.error()));
  return std::move(*group);
}

std::expected<int, Error> show(Limiter& limiter, const host::LimitedGroup& group) {
  const Pid pid = limiter.options.pid;
  const auto now = host::read_limits_in_force(limiter.fs, group);
  if (!now) {
    return Failed(Error{
        ErrorCode::io,
        fmt::format("{}; `gpumeter limit --pid {} --clear` removes the record", now.error(), pid)});
  }
  if (limiter.options.json) {
    limiter.out << dump_json(limit_json(pid, group, *now), false) << '\n';
  } else {
    limiter.out << limit_text(pid, group, *now);
  }
  return 0;
}

std::expected<int, Error> set(Limiter& limiter) {
  const Pid pid = limiter.options.pid;
  auto limits = resolve_limits(limiter.options.limits, "/");
  if (!limits) return Failed(std::move(limits.error()));
  auto existing = load_limit_record(limiter.records, pid);
  if (!existing) return Failed(std::move(existing.error()));
  if (const std::optional<host::LimitedGroup>& record = *existing; record) {
    return Failed(Error{ErrorCode::invalid_input,
                        fmt::format("pid {} is limited already ({}); clear it first with "
                                    "`gpumeter limit --pid {} --clear`",
                                    pid, record->groups.front().string(), pid)});
  }
  auto pids = limit_targets("/", pid, ::geteuid());
  if (!pids) return Failed(std::move(pids.error()));
  // We exit in a moment: when PID is our own ancestor (a shell), we stay out of the group.
  std::erase(*pids, static_cast<Pid>(::getpid()));
  auto group = make_group(limiter, *limits, *pids);
  if (!group) return Failed(std::move(group.error()));
  if (auto saved = save_limit_record(limiter.records, pid, *group); !saved) {
    // Without the record nobody could undo it: undo it now.
    [[maybe_unused]] const auto undone = host::clear_limits(limiter.fs, *group, pid);
    return Failed(std::move(saved.error()));
  }
  return show(limiter, *group);
}

std::expected<int, Error> clear(Limiter& limiter) {
  const Pid pid = limiter.options.pid;
  auto loaded = load_limit_record(limiter.records, pid);
  if (!loaded) return Failed(std::move(loaded.error()));
  const std::optional<host::LimitedGroup>& record = *loaded;
  if (!record) {
    return Failed(Error{ErrorCode::invalid_input,
                        fmt::format("pid {} has no limits of gpumeter limit (no record in {})", pid,
                                    limiter.records.string())});
  }
  if (auto cleared = host::clear_limits(limiter.fs, *record, pid); !cleared) {
    return Failed(Error{ErrorCode::io, std::move(cleared.error())});
  }
  remove_limit_record(limiter.records, pid);
  if (limiter.options.json) {
    limiter.out << dump_json(cleared_json(pid, *record), false) << '\n';
  } else {
    limiter.out << fmt::format("pid {}: limits cleared, processes moved back, {} removed\n", pid,
                               record->groups.front().string());
  }
  return 0;
}

std::expected<int, Error> show_recorded(Limiter& limiter) {
  const Pid pid = limiter.options.pid;
  auto loaded = load_limit_record(limiter.records, pid);
  if (!loaded) return Failed(std::move(loaded.error()));
  if (const std::optional<host::LimitedGroup>& record = *loaded; record) {
    return show(limiter, *record);
  }
  if (auto pids = limit_targets("/", pid, 0); !pids) return Failed(std::move(pids.error()));
  if (limiter.options.json) {
    limiter.out << dump_json(unlimited_json(pid), false) << '\n';
  } else {
    limiter.out << fmt::format("pid {}: no limits of gpumeter limit\n", pid);
  }
  return 0;
}

int limit_command(const LimitOptions& options, std::ostream& out, std::ostream& err) {
  auto records = limit_records_directory(options.state_dir);
  if (!records) return report(err, prefixed(records.error()));
  Limiter limiter{options, std::move(*records), out, {}};
  const auto status = options.clear          ? clear(limiter)
                      : options.limits.any() ? set(limiter)
                                             : show_recorded(limiter);
  if (!status) return report(err, prefixed(status.error()));
  return *status;
}

}  // namespace

Subcommand add_limit_command(CLI::App& app) {
  auto options = std::make_shared<LimitOptions>();
  CLI::App* limit = app.add_subcommand(
      "limit",
      "Limit the CPU and memory of a running process and its children, show or clear the "
      "limits (docs/limit.md)");
  add_limit_command_options(*limit, *options);
  Subcommand command{limit, nullptr, nullptr};
  command.run_without_session = [options](std::ostream& out, std::ostream& err) {
    return limit_command(*options, out, err);
  };
  return command;
}

}  // namespace gpumeter::cli
