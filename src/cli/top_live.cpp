// SPDX-License-Identifier: MIT
#include "cli/top_live.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "cli/interrupt.h"
#include "cli/top_terminal.h"
#include "core/wall_clock.h"
#include "top/render.h"

namespace gpumeter::cli {
namespace {

std::string current_user() {
  if (const passwd* entry = getpwuid(getuid()); entry != nullptr) return entry->pw_name;
  return std::to_string(getuid());
}

}  // namespace

PanelFeed::PanelFeed(Read read)
    : read_(std::move(read)), thread_([this](const std::stop_token& stop) { run(stop); }) {}

std::pair<top::Panes, std::uint64_t> PanelFeed::latest() const {
  const std::lock_guard lock(mutex_);
  return {panes_, version_};
}

std::uint64_t PanelFeed::version() const {
  const std::lock_guard lock(mutex_);
  return version_;
}

void PanelFeed::run(const std::stop_token& stop) {
  std::mutex sleep_mutex;
  std::condition_variable_any wake;
  while (!stop.stop_requested()) {
    top::Panes panes = read_(wall_clock_us(), stop);
    {
      const std::lock_guard lock(mutex_);
      panes_ = std::move(panes);
      ++version_;
    }
    std::unique_lock lock(sleep_mutex);
    wake.wait_for(lock, stop, std::chrono::seconds(10), [] { return false; });
  }
}

top::State initial_top_state(const TopViewOptions& options) {
  top::State state;
  state.me = current_user();
  if (!options.user.empty()) state.user = options.user == "me" ? state.me : options.user;
  state.gpu = options.gpu;
  return state;
}

int run_top_screen(const Output& output, const TopViewOptions& options, const LatestFrame& latest,
                   const PanelFeed& panels, const top::Frame& waiting) {
  std::pair<top::Panes, std::uint64_t> shown_panels;
  const InterruptScope interrupt;
  top::State state = initial_top_state(options);
  TopTerminal terminal(output.color);
  std::shared_ptr<const top::Frame> shown;
  bool dirty = true;
  while (!interrupt.interrupted()) {
    if (!state.paused) {
      auto newest = latest();
      if (newest != shown && newest) {
        shown = std::move(newest);
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
  return 0;
}

void print_top_screen(std::ostream& out, const top::Frame& frame, const TopViewOptions& options) {
  const char* columns_env = std::getenv("COLUMNS");
  const char* lines_env = std::getenv("LINES");
  const int width = columns_env != nullptr ? std::atoi(columns_env) : 0;
  const int height = lines_env != nullptr ? std::atoi(lines_env) : 0;
  const top::Screen screen = top::render(
      frame, initial_top_state(options),
      {.width = width > 0 ? width : 120, .height = height > 0 ? height : 40, .unicode = true});
  out << top::screen_text(screen) << std::flush;
}

}  // namespace gpumeter::cli
