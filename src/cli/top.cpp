// SPDX-License-Identifier: MIT
// `gpumeter top`: a live terminal view of the GPUs and of each process's SM, memory, encoder
// and decoder use (docs/top.md). A sampler runs in its own thread, as in the daemon, and
// publishes a frame after each round; the screen thread only reads the latest frame and keys,
// so a slow driver call never freezes the screen.
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/terminal.h"
#include "cli/top_panels.h"
#include "cli/top_terminal.h"
#include "core/recent_use.h"
#include "core/sampler.h"
#include "core/wall_clock.h"
#include "top/frame_builder.h"
#include "top/render.h"

namespace gpumeter::cli {
namespace {

struct TopOptions {
  double interval_seconds = 1.0;
  std::string user;
  std::optional<std::uint32_t> gpu;
  std::string socket;    // the daemon's task socket; empty: its default
  std::string database;  // its history; empty: `report`'s default
  std::string quota;     // a quota file for the Users pane
  bool once = false;     // print one screen as text after two rounds, without a terminal
};

// The sampler's series are kept ten minutes: the sparklines show two.
constexpr TimeUs kTopHorizonUs = 600'000'000;

// The sampler and the frame its rounds publish.
class LocalFeed {
 public:
  LocalFeed(Session& session, std::chrono::milliseconds interval) {
    SamplerConfig config;
    config.interval = interval;
    config.series.horizon_us = kTopHorizonUs;
    config.collect = session.collect_options();
    config.collect.recent_use = false;  // from the series the rounds drain (publish)
    config.on_snapshot = [this](const Snapshot& snapshot) { publish(snapshot); };
    sampler_ = std::make_unique<Sampler>(session.gpus(), session.host(), config);
  }

  Sampler& sampler() { return *sampler_; }

  // The newest frame; null before the first round.
  std::shared_ptr<const top::Frame> latest() const {
    const std::lock_guard lock(mutex_);
    return frame_;
  }

 private:
  // In the sampler's thread, after each round.
  void publish(const Snapshot& snapshot) {
    history_.add(snapshot);
    top::HostFigureMap hosts;
    top::EngineUseMap uses;  // each process's recent use, from the series the rounds drained
    sampler_->inspect([&](const Series& series) {
      for (const Device& device : snapshot.gpus.devices) {
        const DeviceSeries* own = series.device(device.identity.index);
        if (own == nullptr) continue;
        for (auto& [pid, use] : recent_use_by_pid(device, *own, snapshot))
          uses.emplace(std::pair(device.identity.index, pid), std::move(use));
      }
      for (const auto& [pid, host] : snapshot.processes) {
        if (!host) continue;
        const ProcessKey key{pid, host->start_time_us.value_or(0)};
        if (const HostSeries* found = series.host(key)) hosts[pid] = top::host_figures(*found);
      }
    });
    const SamplerStats stats = sampler_->stats();
    std::string error;
    if (stats.gpu_read.last_failure_us && stats.gpu_read.last_failure_us == stats.last_round_us)
      error = "reading the GPUs failed: " + stats.gpu_read.last_error;
    auto frame = std::make_shared<const top::Frame>(
        top::build_frame(snapshot, history_, hosts, uses, std::move(error)));
    const std::lock_guard lock(mutex_);
    frame_ = std::move(frame);
  }

  top::GpuHistory history_;  // the sampler's thread only
  mutable std::mutex mutex_;
  std::shared_ptr<const top::Frame> frame_;
  std::unique_ptr<Sampler> sampler_;  // last: its thread stops before the rest goes
};

// The daemon's tasks and each user's GPU-hours today, read every 10 s in a thread of their own:
// a socket or a database that is slow to answer never holds the screen up.
class PanelFeed {
 public:
  explicit PanelFeed(TopPanelSources sources)
      : sources_(std::move(sources)), thread_([this](const std::stop_token& stop) { run(stop); }) {}

  // The newest reading and its number (0 before the first).
  std::pair<top::Panes, std::uint64_t> latest() const {
    const std::lock_guard lock(mutex_);
    return {panes_, version_};
  }
  std::uint64_t version() const {
    const std::lock_guard lock(mutex_);
    return version_;
  }

 private:
  void run(const std::stop_token& stop) {
    std::mutex sleep_mutex;
    std::condition_variable_any wake;
    while (!stop.stop_requested()) {
      top::Panes panes = read_panels(sources_, wall_clock_us());
      {
        const std::lock_guard lock(mutex_);
        panes_ = std::move(panes);
        ++version_;
      }
      std::unique_lock lock(sleep_mutex);
      wake.wait_for(lock, stop, std::chrono::seconds(10), [] { return false; });
    }
  }

  const TopPanelSources sources_;
  mutable std::mutex mutex_;
  top::Panes panes_;
  std::uint64_t version_ = 0;
  std::jthread thread_;  // last: it stops before the rest goes
};

std::expected<TopPanelSources, Error> panel_sources(const TopOptions& options) {
  TopPanelSources sources;
  sources.socket = options.socket;
  if (!options.database.empty()) sources.database = options.database;
  if (!options.quota.empty()) {
    auto quotas = view::read_quota_file(options.quota);
    if (!quotas) return std::unexpected(std::move(quotas.error()));
    sources.quotas = std::move(*quotas);
  }
  return sources;
}

std::string current_user() {
  if (const passwd* entry = getpwuid(getuid()); entry != nullptr) return entry->pw_name;
  return std::to_string(getuid());
}

top::State initial_state(const TopOptions& options) {
  top::State state;
  state.me = current_user();
  if (!options.user.empty()) state.user = options.user == "me" ? state.me : options.user;
  state.gpu = options.gpu;
  return state;
}

// A frame to draw before the first round has come back.
top::Frame waiting_frame(const Session& session) {
  top::Frame frame;
  frame.host = session.collect_options().hostname;
  frame.error = "sampling...";
  return frame;
}

int run_once(Context& context, const TopOptions& options) {
  LocalFeed feed(context.session, std::chrono::milliseconds(1000));
  // Two rounds a second apart: CPU use and the sparklines need two readings.
  const TimeUs start = wall_clock_us();
  for (const TimeUs at : {start, start + 1'000'000}) {
    while (wall_clock_us() < at) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (auto ok = feed.sampler().sample_once(wall_clock_us()); !ok)
      return report(context.err, ok.error());
  }
  const char* columns_env = std::getenv("COLUMNS");
  const char* lines_env = std::getenv("LINES");
  const int width = columns_env != nullptr ? std::atoi(columns_env) : 0;
  const int height = lines_env != nullptr ? std::atoi(lines_env) : 0;
  const top::Screen screen = top::render(
      *feed.latest(), initial_state(options),
      {.width = width > 0 ? width : 120, .height = height > 0 ? height : 40, .unicode = true});
  context.out << top::screen_text(screen) << std::flush;
  return 0;
}

int run_live(Context& context, const TopOptions& options) {
  const auto interval =
      std::chrono::milliseconds(static_cast<std::int64_t>(options.interval_seconds * 1000.0));
  auto sources = panel_sources(options);
  if (!sources) return report(context.err, sources.error());
  LocalFeed feed(context.session, interval);
  feed.sampler().start();
  const PanelFeed panels(std::move(*sources));
  std::pair<top::Panes, std::uint64_t> shown_panels;
  const InterruptScope interrupt;
  top::State state = initial_state(options);
  TopTerminal terminal(context.color);
  std::shared_ptr<const top::Frame> shown;
  const top::Frame waiting = waiting_frame(context.session);
  bool dirty = true;
  while (!interrupt.interrupted()) {
    if (!state.paused) {
      auto latest = feed.latest();
      if (latest != shown && latest) {
        shown = std::move(latest);
        dirty = true;
      }
    }
    if (panels.version() != shown_panels.second) {
      shown_panels = panels.latest();
      dirty = dirty || state.pane != top::Pane::processes;
    }
    if (dirty) {
      terminal.paint(top::render(
          shown ? *shown : waiting, shown_panels.first, state,
          {.width = terminal.width(), .height = terminal.height(), .unicode = terminal.unicode()}));
      dirty = false;
    }
    const std::optional<int> key = terminal.read_key(std::chrono::milliseconds(100));
    if (!key) continue;
    if (*key == TopTerminal::kResized) {
      dirty = true;
      continue;
    }
    const top::KeyOutcome outcome = top::apply_key(state, *key, shown ? *shown : waiting);
    if (outcome == top::KeyOutcome::quit) break;
    dirty = dirty || outcome == top::KeyOutcome::changed;
  }
  feed.sampler().stop();
  return 0;
}

}  // namespace

Subcommand add_top_command(CLI::App& app) {
  auto options = std::make_shared<TopOptions>();
  CLI::App* top = app.add_subcommand(
      "top", "A live view of the GPUs and each process's SM, memory, encoder and decoder use");
  top->add_option("--interval", options->interval_seconds, "Sample every SECONDS (0.1 to 60)")
      ->option_text("SECONDS")
      ->check(CLI::Range(0.1, 60.0));
  top->add_option("--user", options->user, "Show this user's processes only (me: yours)")
      ->option_text("NAME");
  top->add_option("--gpu", options->gpu, "Show this GPU only")->option_text("INDEX");
  top->add_option("--socket", options->socket,
                  "The daemon's task socket, for the Tasks pane (default: its default)")
      ->option_text("PATH");
  top->add_option("--database", options->database,
                  "The history to read each user's GPU-hours today from (default: report's)")
      ->option_text("PATH");
  top->add_option("--quota", options->quota, "Show each user's standing against this quota file")
      ->option_text("FILE");
  top->add_flag("--once", options->once,
                "Print one screen as text after two rounds a second apart (COLUMNS x LINES, "
                "else 120 x 40) and exit");
  return {top, [options](Context& context) {
            if (options->once || !context.out_is_terminal) return run_once(context, *options);
            return run_live(context, *options);
          }};
}

}  // namespace gpumeter::cli
