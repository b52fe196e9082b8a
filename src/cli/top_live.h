// SPDX-License-Identifier: MIT
// What both kinds of `gpumeter top` share, whoever makes the frames (a sampler of its own,
// cli/top.cpp, or a running daemon, cli/top_connect.cpp): the panes' feed, the screen's loop
// and the one-screen print of --once.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "cli/commands.h"
#include "top/frame.h"
#include "top/state.h"

namespace gpumeter::cli {

// The options both kinds share.
struct TopViewOptions {
  double interval_seconds = 1.0;
  std::string user;  // "me": the caller
  std::optional<std::uint32_t> gpu;
  bool once = false;  // print one screen as text and exit
};

// `top --connect ADDRESS`: the view of a running daemon, run by gpumeter-serve (which has the
// HTTP client; cli/top_connect.h).
struct RemoteTopRequest {
  TopViewOptions view;
  std::string address;  // "http://gpu01:9416", "gpu01:9416", empty: this machine's daemon
  std::optional<std::filesystem::path> token_file;
  std::optional<std::filesystem::path> ca_file;
};

// The Tasks and Users panes, read every 10 s in a thread of their own by `read`: a socket, a
// database or a daemon that is slow to answer never holds the screen up.
class PanelFeed {
 public:
  // Returns soon once `stop` is requested (the feed is going away).
  using Read = std::function<top::Panes(TimeUs now_us, const std::stop_token& stop)>;
  explicit PanelFeed(Read read);

  // The newest reading and its number (0 before the first).
  std::pair<top::Panes, std::uint64_t> latest() const;
  std::uint64_t version() const;

 private:
  void run(const std::stop_token& stop);

  const Read read_;
  mutable std::mutex mutex_;
  top::Panes panes_;
  std::uint64_t version_ = 0;
  std::jthread thread_;  // last: it stops before the rest goes
};

// The newest frame; null before the first.
using LatestFrame = std::function<std::shared_ptr<const top::Frame>()>;

top::State initial_top_state(const TopViewOptions& options);

// The screen until `q` or Ctrl-C: draws the newest frame (`waiting` before the first) and the
// panes, and follows the keys.
int run_top_screen(const Output& output, const TopViewOptions& options, const LatestFrame& latest,
                   const PanelFeed& panels, const top::Frame& waiting);

// One screen of `frame` as text (COLUMNS x LINES, else 120 x 40).
void print_top_screen(std::ostream& out, const top::Frame& frame, const TopViewOptions& options);

}  // namespace gpumeter::cli
