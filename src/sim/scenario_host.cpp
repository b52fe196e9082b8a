// SPDX-License-Identifier: MIT
#include "sim/scenario_host.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "sim/clock.h"
#include "sim/host_side_abi.h"
#include "sim/machine_clock.h"
#include "sim/scenario.h"

namespace gpumeter::sim {
namespace {

// Linux keeps at most 15 characters of the program's base name in /proc/PID/comm.
std::string comm_of(const std::vector<std::string>& command) {
  const std::string& program = command.front();
  const std::size_t slash = program.rfind('/');
  return program.substr(slash == std::string::npos ? 0 : slash + 1, 15);
}

HostProcess describe_from(const HostSpec& host, Pid pid, std::int64_t epoch_us) {
  HostProcess p;
  p.pid = pid;
  p.user = host.user;
  if (host.uid)
    p.uid = *host.uid;
  else
    p.uid = std::unexpected(Unavailable::not_supported);
  p.cmdline = host.command;
  p.comm = comm_of(host.command);
  p.start_time_us = epoch_us + static_cast<std::int64_t>(std::llround(host.started_s * 1e6));
  if (host.container) p.container = Container{host.container->runtime, host.container->id};
  return p;
}

// One process of the scenario, as the host side sees it.
struct HostEntry {
  Pid pid = 0;
  bool real = false;
  double end_s = 0;
  std::optional<HostSpec> host;
};

std::vector<HostEntry> entries_of(const Scenario& scenario) {
  std::vector<HostEntry> entries;
  entries.reserve(scenario.processes.size());
  for (const ProcessSpec& p : scenario.processes)
    entries.push_back({p.pid, p.real, p.end_s, p.host});
  return entries;
}

std::vector<HostEntry> entries_of(const GpumeterSimHostSide& side) {
  std::vector<HostEntry> entries;
  entries.reserve(side.process_count);
  for (std::size_t i = 0; i < side.process_count; ++i) {
    const GpumeterSimHostProcess& p = side.processes[i];
    HostEntry& entry = entries.emplace_back(HostEntry{p.pid, p.real != 0, p.end_s, std::nullopt});
    if (p.described == 0) continue;
    HostSpec& host = entry.host.emplace();
    host.hidden = p.hidden != 0;
    host.user = p.user;
    if (p.has_uid != 0) host.uid = p.uid;
    host.command.assign(p.command, p.command + p.command_length);
    host.started_s = p.started_s;
    if (p.container_runtime != nullptr && p.container_id != nullptr)
      host.container = ContainerSpec{p.container_runtime, p.container_id};
  }
  return entries;
}

// Keeps a dlopen'ed library loaded while the source lives: the parse it keeps for its next
// nvmlInit stays with it.
using LibraryHold = std::unique_ptr<void, int (*)(void*)>;

LibraryHold no_library() {
  return {nullptr, &dlclose};
}

class ScenarioHostSource final : public ProcessSource {
 public:
  ScenarioHostSource(const std::vector<HostEntry>& entries, std::unique_ptr<ProcessSource> fallback,
                     MachineEpoch epoch, LibraryHold library)
      : fallback_(std::move(fallback)),
        epoch_hold_(std::move(epoch.hold)),
        epoch_us_(epoch.epoch_us),
        library_(std::move(library)) {
    for (const HostEntry& p : entries) {
      if (p.host) hosts_.emplace(p.pid, *p.host);
      if (!p.real) made_up_.insert(p.pid);
      const auto [end, inserted] = ends_s_.try_emplace(p.pid, p.end_s);
      if (!inserted) end->second = std::max(end->second, p.end_s);
    }
  }

  Maybe<HostProcess> describe(Pid pid) override {
    auto it = hosts_.find(pid);
    if (it == hosts_.end()) {
      if (made_up_.contains(pid)) return std::unexpected(Unavailable::not_supported);
      if (fallback_) return fallback_->describe(pid);
      return std::unexpected(Unavailable::process_gone);
    }
    if (ended(pid)) return std::unexpected(Unavailable::process_gone);
    if (it->second.hidden) return std::unexpected(Unavailable::no_permission);
    return describe_from(it->second, pid, epoch_us_);
  }

  // A process the scenario describes has no CPU or memory figures (and its pid may belong to
  // an unrelated real process, which must not be measured in its place); the others are
  // real processes, measured by the fallback.
  void begin_round() override {
    if (fallback_) fallback_->begin_round();
  }

  Maybe<ProcessUsage> usage(Pid pid, UsageDetail detail) override {
    auto it = hosts_.find(pid);
    if (it == hosts_.end()) {
      if (made_up_.contains(pid)) return std::unexpected(Unavailable::not_supported);
      if (fallback_) return fallback_->usage(pid, detail);
      return std::unexpected(Unavailable::process_gone);
    }
    if (ended(pid)) return std::unexpected(Unavailable::process_gone);
    if (it->second.hidden) return std::unexpected(Unavailable::no_permission);
    return std::unexpected(Unavailable::not_supported);
  }

 private:
  // A process the scenario ends has exited: once the last of its entries (one per GPU) has
  // ended, the host no longer knows it, as procfs would not.
  bool ended(Pid pid) const {
    const auto end = ends_s_.find(pid);
    if (end == ends_s_.end() || std::isinf(end->second)) return false;
    return static_cast<double>(now_us() - epoch_us_) / 1e6 >= end->second;
  }

  std::unique_ptr<ProcessSource> fallback_;
  ClockHold epoch_hold_;  // keeps the machine's clock shared while this source lives
  std::int64_t epoch_us_;
  LibraryHold library_;
  std::map<Pid, HostSpec> hosts_;
  std::map<Pid, double> ends_s_;  // the latest end_s of each pid's entries
  std::set<Pid> made_up_;         // pids of processes that are not real: never read from /proc
};

}  // namespace

std::expected<std::unique_ptr<ProcessSource>, Error> open_scenario_host(
    const std::filesystem::path& scenario, std::unique_ptr<ProcessSource> fallback) {
  auto loaded = load_scenario(scenario);
  if (!loaded) return std::unexpected(loaded.error());
  return open_scenario_host(*loaded, scenario, std::move(fallback));
}

std::unique_ptr<ProcessSource> open_scenario_host(const Scenario& scenario,
                                                  const std::filesystem::path& path,
                                                  std::unique_ptr<ProcessSource> fallback) {
  // The simulated library's clock: the machine's (sim/machine_clock.h).
  MachineEpoch epoch = machine_epoch(path, history_lead_s(scenario));
  return std::make_unique<ScenarioHostSource>(entries_of(scenario), std::move(fallback),
                                              std::move(epoch), no_library());
}

std::expected<std::unique_ptr<ProcessSource>, Error> open_scenario_host(
    const std::filesystem::path& scenario, const std::filesystem::path& library,
    std::unique_ptr<ProcessSource> fallback) {
  LibraryHold hold(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL), &dlclose);
  const auto host_side =
      hold == nullptr ? nullptr
                      : reinterpret_cast<GpumeterSimHostSideFn>(dlsym(hold.get(), kHostSideSymbol));
  const GpumeterSimHostSide* side =
      host_side == nullptr ? nullptr : host_side(scenario.c_str(), kGpumeterSimHostSideVersion);
  // Another library (or none at that path): the scenario is parsed here, and the NVML
  // loader says what is wrong with the library.
  if (side == nullptr) return open_scenario_host(scenario, std::move(fallback));
  if (side->error != nullptr) return std::unexpected(Error{ErrorCode::invalid_input, side->error});
  MachineEpoch epoch = machine_epoch(scenario, side->history_lead_s);
  return std::make_unique<ScenarioHostSource>(entries_of(*side), std::move(fallback),
                                              std::move(epoch), std::move(hold));
}

}  // namespace gpumeter::sim
