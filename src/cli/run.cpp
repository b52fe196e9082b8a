// SPDX-License-Identifier: MIT
// `gpumeter run [OPTIONS] -- CMD [ARGS...]`: runs CMD, follows its whole process tree, and
// reports on stderr what it used, on the host and per GPU (docs/run.md). Exits with CMD's
// status.
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/json.h"
#include "cli/run_gpu.h"
#include "cli/run_options.h"
#include "cli/run_setup.h"
#include "core/wall_clock.h"
#include "run/child.h"
#include "run/follow.h"
#include "run/json.h"
#include "run/signals.h"
#include "run/summary.h"
#include "run/supervise.h"

namespace gpumeter::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Every failure before the command runs exits 2: the command was not run.
constexpr int kNotRun = 2;

int not_run(std::ostream& err, const Error& error) {
  err << error.message << '\n';
  return kNotRun;
}

double seconds_of(const timeval& time) {
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}

// Everything a run holds while the command runs.
struct Run {
  const RunSettings& settings;
  std::ostream& err;
  GpuSide gpu_side;
  std::unique_ptr<host::RunCgroup> cgroup;
  std::unique_ptr<GpuMeasure> gpu;
  run::RunResult result;
};

// Puts the child in the cgroup. Without limits, a child the cgroup will not take runs
// without one.
std::expected<void, Error> place(Run& run, pid_t child) {
  if (!run.cgroup) return {};
  auto added = run.cgroup->add(static_cast<Pid>(child));
  if (added) return {};
  if (run.settings.limits.any()) {
    return std::unexpected(Error{ErrorCode::io, fmt::format("gpumeter run: {}. The command was "
                                                            "not run.",
                                                            added.error())});
  }
  [[maybe_unused]] const auto removed = run.cgroup->remove();
  run.cgroup.reset();
  return {};
}

// The processes of the tree, followed by the GPU measure as they appear.
run::SuperviseHooks hooks(Run& run, run::TreeFollower& follower) {
  const auto on_new = [&run](Pid pid) {
    if (run.gpu) run.gpu->follow(pid);
  };
  return run::SuperviseHooks{
      .tick = [&follower, on_new] { (void)follower.refresh(on_new); },
      .exiting = [&follower, on_new](Pid pid) { follower.meet(pid, on_new); },
      .tree = [&follower, on_new] { return follower.refresh(on_new); },
  };
}

void add_host_figures(Run& run) {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  run::RunResult& r = run.result;
  r.cpu_user_seconds = seconds_of(usage.ru_utime);
  r.cpu_system_seconds = seconds_of(usage.ru_stime);
  r.max_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
  if (run.cgroup) {
    r.cgroup = run::RunCgroupInfo{run.cgroup->version(), run.cgroup->path(),
                                  run.cgroup->memory_peak_bytes()};
    if (auto removed = run.cgroup->remove(); !removed) {
      run.err << "gpumeter run: " << removed.error() << '\n';
    }
  }
}

void add_gpu_figures(Run& run) {
  run::RunResult& r = run.result;
  if (!run.gpu) {
    r.gpu_error = run.gpu_side.missing;
    return;
  }
  auto usage = run.gpu->finish(Window{r.start_us, r.end_us});
  const auto snapshot = run.gpu->snapshot();
  if (!snapshot) {
    r.gpu_error = "no reading of the GPUs succeeded";
    return;
  }
  r.gpus_seen = snapshot->gpus.devices.size();
  if (!usage) {
    r.gpu_error = usage.error().message;
    return;
  }
  for (GpuUsage& gpu_usage : usage->gpus) {
    run::RunGpu gpu{.usage = gpu_usage};
    for (const Device& device : snapshot->gpus.devices) {
      if (device.identity.index != gpu_usage.device) continue;
      gpu.name = device.identity.name;
      gpu.uuid = device.identity.uuid;
    }
    r.gpus.push_back(std::move(gpu));
  }
}

int report_run(Run& run) {
  add_host_figures(run);
  add_gpu_figures(run);
  run.err << run::run_summary(run.result) << std::flush;
  if (!run.settings.json.empty()) {
    auto written =
        write_document(run.settings.json, dump_json(run::run_json(run.result), false) + "\n");
    if (!written) run.err << written.error().message << '\n';
  }
  return run.result.exit.status;
}

// A signal that came while gpumeter was getting ready, before there was a command to pass it
// on to (Ctrl-C during a slow driver load): the command is not started.
std::optional<int> stopped_before_start(run::RunSignals& signals) {
  for (const run::RunSignals::Arrival& arrival : signals.take()) {
    if (arrival.signal != SIGCHLD) return arrival.signal;
  }
  return std::nullopt;
}

// Starts the command, follows it to the end of its tree, and reports.
int start_and_follow(Run& run, run::RunSignals& signals) {
  if (const auto signal = stopped_before_start(signals)) {
    run.err << fmt::format("gpumeter run: {} before the command was started; it was not run\n",
                           run::signal_name(*signal));
    return 128 + *signal;
  }
  const auto started = SteadyClock::now();
  run.result.start_us = wall_clock_us();
  auto child = run::PendingChild::fork(run.settings.command, signals.previous_mask());
  if (!child) return not_run(run.err, child.error());
  if (auto placed = place(run, child->pid()); !placed) return not_run(run.err, placed.error());
  const pid_t pid = child->pid();
  if (auto released = child->release(); !released) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    run.err << released.error().message << '\n';
    return released.error().status;
  }
  run::TreeFollower follower(static_cast<Pid>(::getpid()), run.cgroup.get());
  const run::SuperviseHooks supervise_hooks = hooks(run, follower);
  supervise_hooks.tick();  // the command itself, before it can exit
  const int status = run::supervise(pid, signals, run.settings.interval, supervise_hooks);
  run.result.end_us = wall_clock_us();
  run.result.wall_seconds = std::chrono::duration<double>(SteadyClock::now() - started).count();
  run.result.exit = run::exit_of(status);
  run.result.processes = follower.met();
  return report_run(run);
}

int run_prepared(Run& run, run::RunSignals& signals) {
  // Orphans of the tree are reparented to us, not to init: followed, and reaped here.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    run.err << "gpumeter run: cannot become the subreaper of the command's processes; "
               "orphaned ones will not be counted\n";
  }
  if (run.gpu_side.session) {
    run.result.gpu_source = run.gpu_side.session->collect_options().source_label;
    run.gpu = std::make_unique<GpuMeasure>(*run.gpu_side.session, run.settings.interval);
    run.gpu->start();
  }
  return start_and_follow(run, signals);
}

int run_command(const GlobalOptions& global, const RunOptions& options, std::ostream& err) {
  auto settings = resolve_run_options(options, "/");
  if (!settings) {
    return not_run(err, Error{settings.error().code,
                              fmt::format("gpumeter run: {}", settings.error().message)});
  }
  if (!settings->json.empty()) {
    if (auto writable = check_writable(settings->json); !writable) {
      return not_run(err, writable.error());
    }
  }
  // Before the driver is loaded: a thread it starts inherits the mask, and the signals
  // must reach gpumeter through its signalfd, never end it from another thread.
  run::RunSignals signals;
  if (signals.fd() < 0) {
    return not_run(err, Error{ErrorCode::internal, "gpumeter run: cannot watch for signals"});
  }
  auto gpu_side = open_gpu_side(global);
  if (!gpu_side) return not_run(err, gpu_side.error());
  auto cgroup = make_run_cgroup(*settings);
  if (!cgroup) return not_run(err, cgroup.error());
  Run run{*settings, err, std::move(*gpu_side), std::move(*cgroup), nullptr, {}};
  run.result.command = settings->command;
  run.result.hostname = hostname();
  run.result.interval = settings->interval;
  run.result.limits = settings->limits;
  return run_prepared(run, signals);
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "Run a command and report what its whole process tree used (docs/run.md)");
  add_run_options(*run, *options);
  Subcommand command{run, nullptr, nullptr};
  command.run_with_options = [options](const GlobalOptions& global, std::ostream& /*out*/,
                                       std::ostream& err) {
    return run_command(global, *options, err);
  };
  return command;
}

}  // namespace gpumeter::cli
