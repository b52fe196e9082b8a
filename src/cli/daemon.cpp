// SPDX-License-Identifier: MIT
// `gpumeter daemon`: runs the sampler, serves task markers on a Unix socket, records history
// (the database, the daily CSV files) and serves the HTTP API until SIGTERM or SIGINT
// (docs/daemon.md, docs/task-protocol.md, docs/http.md).
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/daemon_options.h"
#include "core/driver_wait.h"
#include "core/sampler.h"
#include "core/wall_clock.h"
#include "daemon/heap_trimmer.h"
#include "daemon/stop_signals.h"
#include "daemon/systemd_notify.h"
#include "host/self_usage.h"
#include "net/agent_routes.h"
#include "net/dashboard_routes.h"
#include "net/http_server.h"
#include "net/metrics_route.h"
#include "net/store_pool.h"
#include "recorder/recorder.h"
#include "store/store.h"
#include "task/listener.h"
#include "task/recent_results.h"
#include "task/sampler_monitor.h"
#include "task/server.h"
#include "task/service.h"

namespace gpumeter::cli {
namespace {

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
  config.daemon.start_time_us = wall_clock_us();
  config.daemon.instance = task::random_instance();
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
  // /api/v1/status and `top --connect` show each process's recent SM, memory, encoder and
  // decoder use, CPU and resident memory, from the series the rounds keep anyway.
  config.recent_figures = true;
  return config;
}

// Lines from any thread (the recorder's too), whole.
class DaemonLog {
 public:
  explicit DaemonLog(std::ostream& err) : err_(err) {}
  void line(const std::string& text) {
    const std::lock_guard lock(mutex_);
    err_ << "gpumeter daemon: " << text << '\n' << std::flush;
  }

 private:
  std::mutex mutex_;
  std::ostream& err_;
};

std::expected<store::Store, Error> open_database(const std::filesystem::path& path,
                                                 const Session& session) {
  return store::Store::open(path, {.host = session.collect_options().hostname,
                                   .page_cache_kib = store::kLongLivedPageCacheKib});
}

recorder::RecorderConfig recorder_config(const DaemonSettings& settings,
                                         const HistorySettings& history, const Session& session) {
  using std::chrono::microseconds;
  std::function<std::expected<store::Store, Error>()> reopen;
  if (history.database) {
    reopen = [path = *history.database, &session] { return open_database(path, session); };
  }
  return recorder::RecorderConfig{
      .record_interval_us =
          std::chrono::duration_cast<microseconds>(history.record_interval).count(),
      .sampler_interval_us = std::chrono::duration_cast<microseconds>(settings.interval).count(),
      .retention = history.retention,
      .csv_directory = history.csv_directory,
      .csv_interval_us = std::chrono::duration_cast<microseconds>(history.csv_interval).count(),
      .csv_file_mode = static_cast<mode_t>(::geteuid() == 0 ? 0640 : 0600),
      .database = history.database,
      .open_database = std::move(reopen)};
}

// "60s", "1.5s"
std::string seconds_text(std::chrono::milliseconds duration) {
  if (duration.count() % 1000 == 0) return fmt::format("{}s", duration.count() / 1000);
  return fmt::format("{}.{:03}s", duration.count() / 1000, duration.count() % 1000);
}

std::string history_line(const HistorySettings& history, bool database_open) {
  std::string line = history.database ? fmt::format("recording history in {} every {}{}",
                                                    history.database->string(),
                                                    seconds_text(history.record_interval),
                                                    database_open ? "" : " once it opens (above)")
                                      : std::string("keeping no history database");
  if (history.csv_directory) {
    line += fmt::format("; CSV files in {} every {}", history.csv_directory->string(),
                        seconds_text(history.csv_interval));
  }
  return line;
}

// How often the sampler's thread gives the heap's free pages back (a trim of a heap holding an
// hour of 8 x 64 processes' series takes about 0.13 ms; docs/benchmarks.md).
constexpr std::chrono::seconds kHeapTrimEvery{60};

// Everything that runs while the daemon serves, in the order it is built and torn down.
struct Running {
  Running(Context& context, const DaemonSettings& settings, const HistorySettings& history,
          store::Store* store, task::Listener& listener, DaemonLog& log)
      : recorder(make_recorder(context.session, settings, history, store, log)),
        recent(settings.retain_tasks, recorder.get()),
        sampler(context.session.gpus(), context.session.host(),
                sampler_settings(context, settings)),
        monitor(sampler),
        config(service_settings(context, settings)),
        service(monitor, config, &recent),
        server(service, listener, config.limits) {}

  static std::unique_ptr<recorder::Recorder> make_recorder(const Session& session,
                                                           const DaemonSettings& settings,
                                                           const HistorySettings& history,
                                                           store::Store* store, DaemonLog& log) {
    if (!history.records_anything()) return nullptr;
    return std::make_unique<recorder::Recorder>(
        store, recorder_config(settings, history, session),
        [&log](const std::string& line) { log.line("history: " + line); });
  }

  SamplerConfig sampler_settings(const Context& context, const DaemonSettings& settings) {
    SamplerConfig made = sampler_config(settings, context.session);
    made.on_snapshot = [this](const Snapshot& s) {
      if (recorder) recorder->observe(s);
      heap.maybe_trim();
    };
    return made;
  }

  task::ServiceConfig service_settings(const Context& context, const DaemonSettings& settings) {
    task::ServiceConfig made = service_config(settings, context.session);
    if (recorder) made.history = [this] { return recorder->status(); };
    return made;
  }

  daemon::HeapTrimmer heap{kHeapTrimEvery};      // before the sampler, whose rounds call it
  std::unique_ptr<recorder::Recorder> recorder;  // before the sampler and the service: they feed it
  task::RecentResults recent;  // settled tasks for HTTP readers, passed on to the recorder
  Sampler sampler;
  task::SamplerMonitor monitor;
  task::ServiceConfig config;
  task::Service service;
  task::Server server;
};

// The HTTP side: the server (bound before anything starts) and what its routes read.
struct Http {
  std::unique_ptr<net::HttpServer> server;
  std::vector<std::string> warnings;    // logged at every start (net::security_warnings)
  std::optional<net::StorePool> store;  // read-only connections to the history database
  std::optional<view::QuotaFile> quotas;
};

// Resolves the HTTP options and binds the server (nothing serves yet), so that a taken port
// or a bad token file stops the daemon before anything starts. Null with --no-http.
std::expected<std::unique_ptr<Http>, Error> open_http(const HttpOptions& options,
                                                      const HistorySettings& history,
                                                      const Session& session) {
  auto resolved = resolve_http_options(options);
  if (!resolved) return std::unexpected(std::move(resolved.error()));
  std::optional<HttpSettings>& wanted = *resolved;
  if (!wanted) return nullptr;
  HttpSettings& settings = *wanted;
  auto server = net::HttpServer::open(settings.config);
  if (!server) return std::unexpected(std::move(server.error()));
  auto http = std::make_unique<Http>();
  http->server = std::move(*server);
  http->warnings = net::security_warnings(settings.config);
  http->quotas = std::move(settings.quotas);
  if (history.database) {
    http->store.emplace(*history.database, session.collect_options().hostname, 8,
                        settings.request_deadline);
  }
  return http;
}

// The ledger counters on /metrics: the recorder's running totals, unless the operator keeps
// user names and commands on the machine (--metrics-processes none) or there is no history.
std::function<std::shared_ptr<const UsageTotals>()> usage_totals(const Running& running,
                                                                 const DaemonSettings& settings) {
  if (!running.recorder || settings.metrics_processes.series == exposition::ProcessSeries::none)
    return nullptr;
  return [&recorder = *running.recorder] { return recorder.usage_totals(); };
}

// Every route the daemon serves over HTTP is registered here, before the server starts.
void add_http_routes(Http& http, Running& running, const DaemonSettings& settings,
                     const DriverWait& driver) {
  net::add_agent_routes(*http.server,
                        net::AgentSources{.sampler = running.sampler,
                                          .interval = settings.interval,
                                          .store = http.store ? &*http.store : nullptr,
                                          .quotas = http.quotas ? &*http.quotas : nullptr,
                                          .tasks = &running.recent,
                                          .now_us = wall_clock_us,
                                          .waiting_for_driver = [&driver] {
                                            const DriverStatus status = driver.status();
                                            return status.up ? std::nullopt
                                                             : std::optional(status.last_error);
                                          }});
  auto self = std::make_shared<host::SelfUsageReader>("/", ::getpid());
  net::register_metrics_route(*http.server, running.sampler,
                              {.processes = settings.metrics_processes},
                              {.driver = [&driver] { return driver.status(); },
                               .self =
                                   [self] {
                                     SelfUsage usage = self->read();
                                     host::add_heap_usage(usage);
                                     usage.sqlite_memory_bytes = store::sqlite_memory_bytes();
                                     return usage;
                                   },
                               .usage_totals = usage_totals(running, settings),
                               .quotas = http.quotas ? &*http.quotas : nullptr});
  net::register_dashboard_routes(*http.server);
}

std::string http_line(const Http* http) {
  return http != nullptr ? fmt::format("; serving HTTP on {}", http->server->url())
                         : std::string("; serving no HTTP (--no-http)");
}

// Stops the HTTP server (whose handlers read the sampler) before anything else stops.
class HttpRun {
 public:
  HttpRun(Http* http, Running& running, const DaemonSettings& settings, const DriverWait& driver)
      : http_(http) {
    if (http_ == nullptr) return;
    add_http_routes(*http_, running, settings, driver);
    http_->server->start();
  }
  HttpRun(const HttpRun&) = delete;
  HttpRun& operator=(const HttpRun&) = delete;
  ~HttpRun() {
    if (http_ != nullptr) http_->server->stop();
  }

 private:
  Http* http_;
};

// Opens (and migrates) the history database before anything else starts. One it cannot open
// (damaged, not writable, a newer gpumeter's: left untouched) does not stop the daemon: the
// live figures and task answers need no history, so it serves them and says why (serve()), and
// the recorder tries the database again every record interval.
struct History {
  std::optional<store::Store> store;
  std::optional<Error> open_error;
};

History open_history(const HistorySettings& settings, const Session& session) {
  History history;
  if (!settings.database) return history;
  auto opened = open_database(*settings.database, session);
  if (opened) {
    history.store.emplace(std::move(*opened));
  } else {
    history.open_error = std::move(opened.error());
  }
  return history;
}

int serve(Context& context, const DaemonSettings& settings, const HistorySettings& history,
          History& database, task::Listener& listener, Http* http,
          const daemon::StopSignals& signals, DaemonLog& log, const DriverWait& driver) {
  Running running(context, settings, history, database.store ? &*database.store : nullptr, listener,
                  log);
  if (database.open_error && running.recorder)
    running.recorder->could_not_open(*database.open_error);
  running.sampler.start();
  if (running.recorder) running.recorder->start(running.sampler);
  std::optional<HttpRun> serving_http(std::in_place, http, running, settings, driver);
  if (http != nullptr) {
    for (const std::string& warning : http->warnings) log.line("warning: " + warning);
  }
  log.line(fmt::format("serving tasks on {} (mode {:04o}); sampling every {}ms, keeping {}s; {}{}",
                       listener.path().string(), settings.socket_mode, settings.interval.count(),
                       std::chrono::duration_cast<std::chrono::seconds>(settings.horizon).count(),
                       history_line(history, !database.open_error), http_line(http)));
  daemon::notify_systemd("READY=1\nSTATUS=sampling");
  const auto served = running.server.run(signals.fd());
  daemon::notify_systemd("STOPPING=1");
  serving_http.reset();
  running.sampler.stop();
  if (running.recorder) running.recorder->finish(running.sampler);
  if (!served) return report(context.err, served.error());
  log.line("stopped");
  return 0;
}

int run_daemon(Context& context, const DaemonSettings& settings, DaemonLog& log,
               const DaemonOptions& options, const ConfigOrigins& origins,
               const DriverWait& driver) {
  const auto history = resolve_history_options(options.history, store::location_environment(),
                                               settings.interval, settings.horizon);
  if (!history) return report(context.err, origins.locate(history.error()));
  History opened = open_history(*history, context.session);
  store::Store* store = opened.store ? &*opened.store : nullptr;
  if (store != nullptr && store->journal_mode() != "wal") {
    context.err << fmt::format(
        "gpumeter daemon: warning: {} is in {} journal mode, not WAL (the "
        "file system lacks shared memory): reports wait for writes\n",
        store->path().string(), store->journal_mode());
  }
  auto http = open_http(options.http, *history, context.session);
  if (!http) return report(context.err, origins.locate(http.error()));
  if (auto ready = prepare_directory(settings.socket); !ready) {
    return report(context.err, ready.error());
  }
  const daemon::StopSignals signals;
  if (signals.fd() < 0) {
    return report(context.err, Error{ErrorCode::internal, "cannot watch for SIGTERM and SIGINT"});
  }
  auto listener = task::Listener::open(settings.socket, settings.socket_mode);
  if (!listener) return report(context.err, listener.error());
  return serve(context, settings, *history, opened, *listener, http->get(), signals, log, driver);
}

// The options first, then the sources: the GPU source waits for its driver (DriverWait) rather
// than failing, so that a daemon started before the driver loaded picks the GPUs up later.
int start_daemon(const GlobalOptions& global, std::ostream& out, std::ostream& err,
                 CLI::App& daemon, const DaemonOptions& options) {
  ConfigOrigins origins;
  if (!options.config.empty()) {
    auto applied = apply_config_file(daemon, options.config);
    if (!applied) return report(err, applied.error());
    origins = std::move(*applied);
  }
  const auto settings = resolve_daemon_options(options, task::socket_environment());
  if (!settings) return report(err, origins.locate(settings.error()));
  auto host = open_host_side(global);
  if (!host) return report(err, host.error());
  DaemonLog log(err);
  const DriverWait* driver = nullptr;
  OpenedSource gpus = open_default_gpu_source_waiting(
      host->gpus, [&log](const std::string& line) { log.line(line); }, driver);
  Session session = make_session(std::move(*host), std::move(gpus));
  Context context{session, out, err, false, false};
  return run_daemon(context, *settings, log, options, origins, *driver);
}

}  // namespace

Subcommand add_daemon_command(CLI::App& app) {
  auto options = std::make_shared<DaemonOptions>();
  CLI::App* daemon = app.add_subcommand("daemon", kDaemonSummary);
  add_daemon_options(*daemon, *options);
  return {.app = daemon,
          .run_with_options = [options, daemon](const GlobalOptions& global, std::ostream& out,
                                                std::ostream& err) {
            return start_daemon(global, out, err, *daemon, *options);
          }};
}

}  // namespace gpumeter::cli
