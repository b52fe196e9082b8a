// `gpumeter daemon`: runs the sampler and serves task markers on a Unix socket until SIGTERM
// or SIGINT (docs/daemon.md, docs/task-protocol.md).
#include <fmt/format.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>

#include "cli/commands.h"
#include "cli/daemon_options.h"
#include "core/sampler.h"
#include "task/listener.h"
#include "task/sampler_monitor.h"
#include "task/server.h"
#include "task/service.h"

namespace gpumeter::cli {
namespace {

// SIGTERM and SIGINT arrive as readable data on a signalfd, which the server polls; they are
// blocked in every thread (the sampler's thread inherits the mask), so none is interrupted.
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
    fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // Takes the signals that stopped the server, so that unblocking them does not deliver them
  // again (and end the process with their default action instead of exit status 0).
  ~StopSignals() {
    signalfd_siginfo info{};
    while (fd_ >= 0 && ::read(fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
    }
    if (fd_ >= 0) ::close(fd_);
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  int fd() const noexcept { return fd_; }

 private:
  sigset_t set_{};
  sigset_t previous_{};
  int fd_ = -1;
};

// root's default directory, /run/gpumeter, is created on first use; any other directory must
// exist.
std::expected<void, Error> prepare_directory(const std::filesystem::path& socket) {
  if (socket.parent_path() != task::kSystemSocketDirectory) return {};
  if (::mkdir(task::kSystemSocketDirectory, 0755) == 0 || errno == EEXIST) return {};
  return std::unexpected(Error{
      ErrorCode::io,
      fmt::format("{}: cannot create: {}", task::kSystemSocketDirectory, std::strerror(errno))});
}

task::ServiceConfig service_config(const DaemonSettings& settings, const Session& session) {
  task::ServiceConfig config;
  config.limits.retained_tasks = settings.retain_tasks;
  config.interval_us = std::chrono::microseconds(settings.interval).count();
  config.daemon.version = GPUMETER_VERSION;
  config.daemon.pid = static_cast<Pid>(::getpid());
  config.daemon.uid = ::getuid();
  config.daemon.start_time_us = task::wall_clock_us();
  config.daemon.interval_ms = settings.interval.count();
  config.daemon.horizon_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(settings.horizon).count();
  config.daemon.source = session.collect_options().source_label;
  return config;
}

SamplerConfig sampler_config(const DaemonSettings& settings, const Session& session) {
  SamplerConfig config;
  config.interval = settings.interval;
  config.series.horizon_us = std::chrono::microseconds(settings.horizon).count();
  config.series.interval_us = std::chrono::microseconds(settings.interval).count();
  config.collect = session.collect_options();
  return config;
}

int serve(Context& context, const DaemonSettings& settings, task::Listener& listener,
          const StopSignals& signals) {
  Sampler sampler(context.session.gpus(), context.session.host(),
                  sampler_config(settings, context.session));
  task::SamplerMonitor monitor(sampler);
  const task::ServiceConfig config = service_config(settings, context.session);
  task::Service service(monitor, config);
  task::Server server(service, listener, config.limits);
  sampler.start();
  context.err << fmt::format(
                     "gpumeter daemon: serving tasks on {} (mode {:04o}); sampling every {}ms, "
                     "keeping {}s\n",
                     listener.path().string(), settings.socket_mode, settings.interval.count(),
                     std::chrono::duration_cast<std::chrono::seconds>(settings.horizon).count())
              << std::flush;
  const auto served = server.run(signals.fd());
  sampler.stop();
  if (!served) return report(context.err, served.error());
  context.err << "gpumeter daemon: stopped\n";
  return 0;
}

int run_daemon(Context& context, CLI::App& daemon, const DaemonOptions& options) {
  if (!options.config.empty()) {
    if (auto applied = apply_config_file(daemon, options.config); !applied) {
      return report(context.err, applied.error());
    }
  }
  const auto settings = resolve_daemon_options(options, task::socket_environment());
  if (!settings) return report(context.err, settings.error());
  if (auto ready = prepare_directory(settings->socket); !ready) {
    return report(context.err, ready.error());
  }
  const StopSignals signals;
  if (signals.fd() < 0) {
    return report(context.err, Error{ErrorCode::internal, "cannot watch for SIGTERM and SIGINT"});
  }
  auto listener = task::Listener::open(settings->socket, settings->socket_mode);
  if (!listener) return report(context.err, listener.error());
  return serve(context, *settings, *listener, signals);
}

}  // namespace

Subcommand add_daemon_command(CLI::App& app) {
  auto options = std::make_shared<DaemonOptions>();
  CLI::App* daemon = app.add_subcommand(
      "daemon", "Sample continuously and answer what marked tasks used (docs/daemon.md)");
  add_daemon_options(*daemon, *options);
  return {daemon,
          [options, daemon](Context& context) { return run_daemon(context, *daemon, *options); }};
}

}  // namespace gpumeter::cli
