// SPDX-License-Identifier: MIT
#include "cli/top_connect.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <utility>

#include "cli/top_remote.h"

namespace gpumeter::cli {
namespace {

// Polls the daemon every interval in a thread of its own and keeps the newest frame: a daemon
// that is slow to answer delays the next frame, never the screen. When a poll fails, the last
// good frame stays, with the failure in its header.
class RemoteFeed {
 public:
  RemoteFeed(const RemoteDaemon& daemon, std::chrono::milliseconds interval, top::Frame waiting)
      : reader_(daemon, interval),
        interval_(interval),
        frame_(std::make_shared<const top::Frame>(std::move(waiting))),
        thread_([this](const std::stop_token& stop) { run(stop); }) {}

  std::shared_ptr<const top::Frame> latest() const {
    const std::lock_guard lock(mutex_);
    return frame_;
  }

 private:
  void run(const std::stop_token& stop) {
    std::mutex sleep_mutex;
    std::condition_variable_any wake;
    auto next = std::chrono::steady_clock::now();
    while (!stop.stop_requested()) {
      publish(reader_.poll(stop));
      next = std::max(next + interval_, std::chrono::steady_clock::now());
      std::unique_lock lock(sleep_mutex);
      wake.wait_until(lock, stop, next, [] { return false; });
    }
  }

  void publish(std::expected<top::Frame, std::string> polled) {
    if (!polled) {
      top::Frame kept = *latest();
      kept.error = std::move(polled.error());
      polled = std::move(kept);
    }
    auto fresh = std::make_shared<const top::Frame>(std::move(*polled));
    const std::lock_guard lock(mutex_);
    frame_ = std::move(fresh);
  }

  RemoteReader reader_;  // the feed's thread only
  const std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::shared_ptr<const top::Frame> frame_;
  std::jthread thread_;  // last: it stops before the rest goes
};

}  // namespace

int run_remote_top(const Output& output, const RemoteTopRequest& request,
                   std::span<const std::string>) {
  auto daemon = remote_daemon(request.address, request.token_file, request.ca_file);
  if (!daemon) {
    return report(output.err,
                  Error{daemon.error().code, "gpumeter top: " + daemon.error().message});
  }
  const std::chrono::milliseconds interval(
      static_cast<std::int64_t>(request.view.interval_seconds * 1000.0));
  if (request.view.once || !output.out_is_terminal) {
    RemoteReader reader(*daemon, interval);
    auto frame = reader.poll();
    if (!frame) return report(output.err, Error{ErrorCode::io, "gpumeter top: " + frame.error()});
    print_top_screen(output.out, *frame, request.view);
    return 0;
  }
  top::Frame waiting;
  waiting.host = daemon->url.host;
  waiting.error = "connecting to " + daemon->url.origin() + "...";
  const RemoteFeed feed(*daemon, interval, std::move(waiting));
  auto panel_reader = std::make_shared<RemoteReader>(*daemon, interval);
  const PanelFeed panels([panel_reader](TimeUs now_us, const std::stop_token& stop) {
    return panel_reader->panels(now_us, stop);
  });
  return run_top_screen(
      output, request.view, [&feed] { return feed.latest(); }, panels, *feed.latest());
}

}  // namespace gpumeter::cli
