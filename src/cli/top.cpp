// SPDX-License-Identifier: MIT
// `gpumeter top`: a live terminal view of the GPUs and of each process's SM, memory, encoder
// and decoder use (docs/top.md). A sampler runs in its own thread, as in the daemon, and
// publishes a frame after each round; the screen thread only reads the latest frame and keys,
// so a slow driver call never freezes the screen. With --connect the frames come from a running
// daemon instead, in gpumeter-serve (cli/top_connect.h); the screen is shared (cli/top_live.h).
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/top_live.h"
#include "cli/top_panels.h"
#include "core/sampler.h"
#include "core/wall_clock.h"
#include "top/frame_builder.h"

namespace gpumeter::cli {
namespace {

struct TopOptions {
  TopViewOptions view;
  std::string socket;    // the daemon's task socket; empty: its default
  std::string database;  // its history; empty: `report`'s default
  std::string quota;     // a quota file for the Users pane
  std::string connect;   // a running daemon's HTTP address: its readings instead of a sampler
  std::string token_file;
  std::string ca_file;
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
    config.collect.recent_use = false;  // from the series the rounds drain
    config.recent_figures = true;
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
    const SamplerStats stats = sampler_->stats();
    std::string error;
    if (stats.gpu_read.last_failure_us && stats.gpu_read.last_failure_us == stats.last_round_us)
      error = "reading the GPUs failed: " + stats.gpu_read.last_error;
    auto frame =
        std::make_shared<const top::Frame>(top::build_frame(snapshot, history_, std::move(error)));
    const std::lock_guard lock(mutex_);
    frame_ = std::move(frame);
  }

  top::GpuHistory history_;  // the sampler's thread only
  mutable std::mutex mutex_;
  std::shared_ptr<const top::Frame> frame_;
  std::unique_ptr<Sampler> sampler_;  // last: its thread stops before the rest goes
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
  print_top_screen(context.out, *feed.latest(), options.view);
  return 0;
}

int run_live(Context& context, const TopOptions& options) {
  const auto interval =
      std::chrono::milliseconds(static_cast<std::int64_t>(options.view.interval_seconds * 1000.0));
  auto sources = panel_sources(options);
  if (!sources) return report(context.err, sources.error());
  LocalFeed feed(context.session, interval);
  feed.sampler().start();
  const PanelFeed panels([sources = std::move(*sources)](TimeUs now_us, const std::stop_token&) {
    return read_panels(sources, now_us);
  });
  const int status = run_top_screen(
      Output{context.out, context.err, context.out_is_terminal, context.color}, options.view,
      [&feed] { return feed.latest(); }, panels, waiting_frame(context.session));
  feed.sampler().stop();
  return status;
}

// --connect: the daemon's view, in gpumeter-serve; nullopt without it (this machine's view).
std::optional<int> connect_instead(const Output& output, const TopOptions& options, bool connect,
                                   const ServeCommands& serve, std::span<const std::string> args) {
  if (!connect) {
    if (options.token_file.empty() && options.ca_file.empty()) return std::nullopt;
    output.err << "gpumeter top: --token-file and --ca-file need --connect ADDRESS\n";
    return 2;
  }
  if (!options.socket.empty() || !options.database.empty() || !options.quota.empty()) {
    output.err << "gpumeter top: --socket, --database and --quota read this machine's daemon; "
                  "with --connect the daemon's own tasks and history are shown\n";
    return 2;
  }
  RemoteTopRequest request{.view = options.view, .address = options.connect};
  if (!options.token_file.empty()) request.token_file = options.token_file;
  if (!options.ca_file.empty()) request.ca_file = options.ca_file;
  return serve.remote_top(output, request, args);
}

}  // namespace

Subcommand add_top_command(CLI::App& app, const ServeCommands& serve,
                           std::span<const std::string> args) {
  auto options = std::make_shared<TopOptions>();
  CLI::App* top = app.add_subcommand(
      "top", "A live view of the GPUs and each process's SM, memory, encoder and decoder use");
  top->add_option("--interval", options->view.interval_seconds,
                  "Sample (with --connect: ask the daemon) every SECONDS (0.1 to 60)")
      ->option_text("SECONDS")
      ->check(CLI::Range(0.1, 60.0));
  top->add_option("--user", options->view.user, "Show this user's processes only (me: yours)")
      ->option_text("NAME");
  top->add_option("--gpu", options->view.gpu, "Show this GPU only")->option_text("INDEX");
  CLI::Option* connect =
      top->add_option("--connect", options->connect,
                      "Show what the daemon serving this HTTP address measures (http://HOST:PORT, "
                      "https://..., or HOST:PORT; alone: this machine's daemon, "
                      "127.0.0.1:9416), history from before top started included, instead of "
                      "sampling here")
          ->option_text("[ADDRESS]")
          ->expected(0, 1);
  top->add_option("--token-file", options->token_file,
                  "With --connect: send the token in FILE, as the daemon's --token-file")
      ->option_text("FILE");
  top->add_option("--ca-file", options->ca_file,
                  "With --connect to https: trust the certificates in FILE only")
      ->option_text("FILE");
  top->add_option("--socket", options->socket,
                  "The daemon's task socket, for the Tasks pane (default: its default)")
      ->option_text("PATH");
  top->add_option("--database", options->database,
                  "The history to read each user's GPU-hours today from (default: report's)")
      ->option_text("PATH");
  top->add_option("--quota", options->quota, "Show each user's standing against this quota file")
      ->option_text("FILE");
  top->add_flag("--once", options->view.once,
                "Print one screen as text (here: after two rounds a second apart; COLUMNS x "
                "LINES, else 120 x 40) and exit");
  return {.app = top,
          .run =
              [options](Context& context) {
                if (options->view.once || !context.out_is_terminal)
                  return run_once(context, *options);
                return run_live(context, *options);
              },
          .instead_of_session =
              [options, connect, serve,
               line = std::vector<std::string>(args.begin(), args.end())](const Output& output) {
                return connect_instead(output, *options, connect->count() > 0, serve, line);
              }};
}

}  // namespace gpumeter::cli
