#include "sim/scenario_host.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/clock.h"
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

class ScenarioHostSource final : public ProcessSource {
 public:
  ScenarioHostSource(Scenario scenario, std::unique_ptr<ProcessSource> fallback, MachineEpoch epoch)
      : scenario_(std::move(scenario)),
        fallback_(std::move(fallback)),
        epoch_hold_(std::move(epoch.hold)),
        epoch_us_(epoch.epoch_us) {
    for (const ProcessSpec& p : scenario_.processes) {
      if (p.host) hosts_.emplace(p.pid, &*p.host);
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
    if (it->second->hidden) return std::unexpected(Unavailable::no_permission);
    return describe_from(*it->second, pid, epoch_us_);
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
    if (it->second->hidden) return std::unexpected(Unavailable::no_permission);
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

  Scenario scenario_;
  std::unique_ptr<ProcessSource> fallback_;
  ClockHold epoch_hold_;  // keeps the machine's clock shared while this source lives
  std::int64_t epoch_us_;
  std::map<Pid, const HostSpec*> hosts_;  // points into scenario_
  std::map<Pid, double> ends_s_;
  std::set<Pid> made_up_;  // pids of processes that are not real: never read from /proc          //
                           // the latest end_s of each pid's entries
};

}  // namespace

std::expected<std::unique_ptr<ProcessSource>, Error> open_scenario_host(
    const std::filesystem::path& scenario, std::unique_ptr<ProcessSource> fallback) {
  auto loaded = load_scenario(scenario);
  if (!loaded) return std::unexpected(loaded.error());
  // The simulated library's clock: the machine's (sim/machine_clock.h).
  MachineEpoch epoch = machine_epoch(scenario, history_lead_s(*loaded));
  return std::make_unique<ScenarioHostSource>(std::move(*loaded), std::move(fallback),
                                              std::move(epoch));
}

}  // namespace gpumeter::sim
