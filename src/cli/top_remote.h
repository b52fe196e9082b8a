// SPDX-License-Identifier: MIT
// `top --connect`: what a running daemon measures, over its HTTP API, instead of a sampler of
// top's own: no NVML call here. GET /api/v1/status every interval (the daemon's latest round,
// with each process's engine use, CPU and memory), each GPU's history once on attaching (the
// sparklines start full: readings from before top began), and every 10 s the tasks of the last
// ten minutes and each user's GPU-hours today for the Tasks and Users panes.
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "core/error.h"
#include "master/http_client.h"
#include "master/url.h"
#include "top/frame.h"
#include "top/frame_builder.h"
#include "view/json.h"

namespace gpumeter::cli {

struct RemoteDaemon {
  master::AgentUrl url;
  master::ClientOptions options;  // the token, the certificates to trust, each request's bound
};

// "http://gpu01:9416", "https://gpu01:9416", "HOST:PORT" (http), or empty for this machine's
// daemon at its default address (http://127.0.0.1:9416); the token file as the
// daemon's --token-file (read once, here); `ca_file` for https with a private authority.
// Errors: invalid_input for an address that is not one, io or invalid_input for the token file.
std::expected<RemoteDaemon, Error> remote_daemon(
    std::string_view address, const std::optional<std::filesystem::path>& token,
    const std::optional<std::filesystem::path>& ca_file);

// The reading side, one caller at a time (a feed's thread, or --once).
class RemoteReader {
 public:
  RemoteReader(RemoteDaemon daemon, std::chrono::milliseconds interval);

  // Reads the status (and, the first time one comes, each GPU's history) and builds the frame.
  // Errors: the daemon could not be read, in one line naming it; the history kept so far stays.
  std::expected<top::Frame, std::string> poll(const std::stop_token& stop = {});

  // The Tasks and Users panes from the daemon's /api/v1/tasks and /api/v1/usage.
  top::Panes panels(TimeUs now_us, const std::stop_token& stop = {});

  // "the daemon at http://gpu01:9416"
  std::string name() const;

 private:
  template <class Json>
  std::expected<Json, std::string> get(const std::string& target, const std::stop_token& stop);
  void seed_history(const view::Json& status, const std::stop_token& stop);

  RemoteDaemon daemon_;
  std::chrono::seconds step_;
  master::HttpClient client_;
  top::GpuHistory history_;
  bool seeded_ = false;
};

}  // namespace gpumeter::cli
