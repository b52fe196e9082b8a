// SPDX-License-Identifier: MIT
// A simulated day of the daemon's work in one process, its clock stepped one second per round
// (docs/benchmarks.md, "A simulated day"). What `gpumeter daemon` wires together (sampler,
// history recorder with its SQLite file, task service with its retained results, the
// Prometheus exposition) runs here on the simulated 8 x 64 machine (bench/bench-8x64.json,
// through the real loader and the simulated library), with:
//  - process churn: each of the 512 processes is replaced by a new one, with a new pid and
//    start time, every 30.72 s, staggered (1,000 starts and exits a minute, 1.44 million
//    processes a day). The simulated library's processes run for ever; the churn renames them
//    (ChurningGpus, ChurningHost), so that a day needs no 1.44-million-process scenario;
//  - task traffic: 10 tasks a second (begin, end 50 ms later) by one long-lived worker, this
//    process, settled after each round and handed to the recorder;
//  - a scrape every second: the exposition of the round's snapshot, rendered;
//  - history recorded every 10 s, with the daemon's checkpoint and hourly maintenance
//    scheduled on the simulated clock; the heap trimmed every simulated minute, as the
//    daemon's sampler thread does.
// It prints one row per simulated hour: the heap in use (mallinfo2), VmRSS, the series' bytes,
// the database's size, the CPU per round, and the slope of the heap in use after the warm-up.
//
//   build/rel/bin/day_bench [--hours 24] [--row-minutes 60] [--csv FILE] [--no-teardown]
// --no-teardown leaves at once, everything still allocated: under heaptrack, what the daemon's
// parts hold at the end then shows as leaked, and two runs of different lengths diff.
#include <fmt/format.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/sampler.h"
#include "exposition/cache.h"
#include "host/files.h"
#include "host/proc_parse.h"
#include "host/procfs.h"
#include "nvml/backend.h"
#include "recorder/recorder.h"
#include "sim/scenario_host.h"
#include "store/store.h"
#include "task/recent_results.h"
#include "task/sampler_monitor.h"
#include "task/service.h"

namespace {

using gpumeter::kHourUs;
using gpumeter::kMinuteUs;
using gpumeter::kSecondUs;
using gpumeter::Maybe;
using gpumeter::Pid;
using gpumeter::TimeUs;

constexpr TimeUs kEpochUs = 1'700'000'000'000'000;
constexpr double kLifetimeS = 30.72;  // 512 processes / 30.72 s = 1,000 starts a minute
constexpr Pid kFirstChurnedPid = 1'000'000;
constexpr int kTasksPerSecond = 10;
constexpr TimeUs kTaskLengthUs = 50'000;
constexpr TimeUs kRecordIntervalUs = 10 * kSecondUs;
constexpr auto kHorizon = std::chrono::minutes(5);
constexpr std::size_t kRetainedTasks = 2000;
// The stores' warm-up (docs/benchmarks.md, "Soak"): the recorder's identities are kept 610 s,
// the series twice the horizon, the retained tasks 200 s at 10 a second.
constexpr TimeUs kWarmUpUs = 610 * kSecondUs;

// The simulated clock, read by the churn and stepped by the day. The simulated library reads
// $GPUMETER_SIM_NOW_US at every call; the variable is this object's own buffer (putenv), whose
// digits are rewritten in place: setenv keeps every value it replaces (glibc never frees them),
// 61 bytes a second, which was most of what this benchmark's heap grew by in a day.
class Clock {
 public:
  Clock() {
    const std::string_view name = "GPUMETER_SIM_NOW_US=";
    std::ranges::copy(name, variable_.begin());
    digits_ = variable_.data() + name.size();
    step_to(kEpochUs);
    ::putenv(variable_.data());
  }
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  ~Clock() { ::unsetenv("GPUMETER_SIM_NOW_US"); }  // the environment must not keep the buffer

  void step_to(TimeUs t) {
    now_us = t;
    *fmt::format_to_n(digits_, kDigits, "{:0{}}", t, kDigits).out = '\0';
  }

  TimeUs now_us = kEpochUs;

 private:
  static constexpr std::size_t kDigits = 19;  // every positive int64
  std::array<char, 64> variable_{};
  char* digits_ = nullptr;
};

// Which pid each of the scenario's processes has at a moment: its slot's generation there.
// Slot k's processes start at k/N of a lifetime and follow one another.
class Churn {
 public:
  explicit Churn(const Clock& clock) : clock_(clock) {}

  // The scenario's pids, in the order of the first reading (the slots).
  void learn(const gpumeter::GpuReading& reading) {
    if (!slots_.empty()) return;
    for (const gpumeter::Device& device : reading.devices) {
      if (!device.processes) continue;
      for (const gpumeter::GpuProcess& p : *device.processes) {
        slots_.emplace(p.pid, static_cast<Pid>(scenario_pids_.size()));
        scenario_pids_.push_back(p.pid);
      }
    }
  }

  // The pid the scenario's process `pid` goes by at `t_us`; itself when it is not churned.
  Pid renamed(Pid pid, TimeUs t_us) const {
    const auto it = slots_.find(pid);
    if (it == slots_.end()) return pid;
    return kFirstChurnedPid + (generation(it->second, t_us) * slot_count()) + it->second;
  }

  struct Life {
    Pid scenario_pid = 0;
    TimeUs start_us = 0;
    bool alive = false;  // at the clock's time
  };
  // The life a churned pid names; absent for any other pid.
  std::optional<Life> life_of(Pid pid) const {
    if (pid < kFirstChurnedPid || scenario_pids_.empty()) return std::nullopt;
    const Pid slot = (pid - kFirstChurnedPid) % slot_count();
    const Pid g = (pid - kFirstChurnedPid) / slot_count();
    const double start_s = offset_s(slot) + ((static_cast<double>(g) - 1) * kLifetimeS);
    return Life{.scenario_pid = scenario_pids_[slot],
                .start_us = kEpochUs + std::llround(start_s * 1e6),
                .alive = generation(slot, clock_.now_us) == g};
  }

 private:
  Pid slot_count() const { return static_cast<Pid>(scenario_pids_.size()); }
  double offset_s(Pid slot) const {
    return static_cast<double>(slot) * kLifetimeS / static_cast<double>(slot_count());
  }
  Pid generation(Pid slot, TimeUs t_us) const {
    const double t_s = static_cast<double>(t_us - kEpochUs) / 1e6;
    return static_cast<Pid>(std::max(0.0, std::floor((t_s - offset_s(slot)) / kLifetimeS) + 1));
  }

  const Clock& clock_;
  std::map<Pid, Pid> slots_;  // scenario pid -> slot
  std::vector<Pid> scenario_pids_;
};

// The simulated GPUs with the churn's pids.
class ChurningGpus final : public gpumeter::GpuSource {
 public:
  ChurningGpus(std::unique_ptr<gpumeter::GpuSource> inner, Churn& churn, const Clock& clock)
      : inner_(std::move(inner)), churn_(churn), clock_(clock) {}

  std::string_view name() const noexcept override { return inner_->name(); }

  std::expected<gpumeter::GpuReading, gpumeter::Error> read() override {
    auto reading = inner_->read();
    if (!reading) return reading;
    churn_.learn(*reading);
    for (gpumeter::Device& device : reading->devices) {
      if (!device.processes) continue;
      for (gpumeter::GpuProcess& p : *device.processes)
        p.pid = churn_.renamed(p.pid, clock_.now_us);
    }
    return reading;
  }

  Maybe<std::vector<gpumeter::PidGpuSample>> drain_process_utilization(
      std::uint32_t device_index, std::optional<TimeUs> last_seen_us) override {
    auto samples = inner_->drain_process_utilization(device_index, last_seen_us);
    if (!samples) return samples;
    for (gpumeter::PidGpuSample& s : *samples) s.pid = churn_.renamed(s.pid, s.sample.time_us);
    return samples;
  }

  Maybe<std::vector<gpumeter::BufferedSample>> drain_device_samples(
      std::uint32_t device_index, gpumeter::DeviceBuffer buffer,
      std::optional<TimeUs> last_seen_us) override {
    return inner_->drain_device_samples(device_index, buffer, last_seen_us);
  }

  Maybe<gpumeter::GpuMemoryHeld> process_memory(Pid pid,
                                                std::span<const std::uint32_t> devices) override {
    const auto life = churn_.life_of(pid);
    if (life && life->alive) return inner_->process_memory(life->scenario_pid, devices);
    gpumeter::GpuMemoryHeld none;
    for (const std::uint32_t device : devices) none[device] = 0;
    return none;
  }

 private:
  std::unique_ptr<gpumeter::GpuSource> inner_;
  Churn& churn_;
  const Clock& clock_;
};

// The scenario's host side under the churn's pids (each life with its own start time), and
// this process, the task worker, from procfs. Other processes' CPU and memory are not read:
// reading /proc 512 times a round is timed on its own (sampler_bench) and would make the day
// take most of an hour here.
class ChurningHost final : public gpumeter::ProcessSource {
 public:
  ChurningHost(std::unique_ptr<gpumeter::ProcessSource> scenario, const Churn& churn)
      : scenario_(std::move(scenario)), churn_(churn) {}

  void begin_round() override { procfs_.begin_round(); }

  Maybe<gpumeter::HostProcess> describe(Pid pid) override {
    if (pid == self_) return procfs_.describe(pid);
    const auto life = churn_.life_of(pid);
    if (!life || !life->alive) return std::unexpected(gpumeter::Unavailable::process_gone);
    auto described = scenario_->describe(life->scenario_pid);
    if (!described) return described;
    described->pid = pid;
    described->start_time_us = life->start_us;
    return described;
  }

  Maybe<gpumeter::ProcessUsage> usage(Pid pid, gpumeter::UsageDetail detail) override {
    if (pid == self_) return procfs_.usage(pid, detail);
    return std::unexpected(gpumeter::Unavailable::not_supported);
  }

 private:
  std::unique_ptr<gpumeter::ProcessSource> scenario_;
  const Churn& churn_;
  gpumeter::host::ProcfsProcessSource procfs_;
  Pid self_ = static_cast<Pid>(::getpid());
};

struct Options {
  int hours = 24;
  int row_minutes = 60;
  std::optional<std::string> csv;
  bool teardown = true;
};

std::optional<Options> parse_options(std::span<char*> args) {
  Options options;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--hours" && i + 1 < args.size()) {
      options.hours = std::atoi(args[++i]);
    } else if (arg == "--row-minutes" && i + 1 < args.size()) {
      options.row_minutes = std::atoi(args[++i]);
    } else if (arg == "--no-teardown") {
      options.teardown = false;
    } else if (arg == "--csv" && i + 1 < args.size()) {
      options.csv = args[++i];
    } else {
      return std::nullopt;
    }
  }
  if (options.hours < 1 || options.row_minutes < 1) return std::nullopt;
  return options;
}

double mib(double bytes) {
  return bytes / (1024.0 * 1024.0);
}

// Bytes malloc hands out now (the arena's and the mmapped chunks').
double heap_in_use_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

double rss_bytes() {
  const auto text = gpumeter::host::read_file("/proc/self/status");
  if (!text) return 0;
  return static_cast<double>(gpumeter::host::parse_status(*text).rss_kib.value_or(0)) * 1024.0;
}

std::size_t open_descriptors() {
  std::error_code error;
  const std::filesystem::directory_iterator entries("/proc/self/fd", error);
  return error ? 0 : static_cast<std::size_t>(std::distance(begin(entries), end(entries)));
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + (static_cast<double>(t.tv_usec) / 1e6);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Least-squares slope of y over x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  if (x.size() < 2) return 0;
  double sx = 0;
  double sy = 0;
  double sxx = 0;
  double sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double denominator = (n * sxx) - (sx * sx);
  return denominator == 0 ? 0 : ((n * sxy) - (sx * sy)) / denominator;
}

// The daemon's parts, wired as `gpumeter daemon` wires them (cli/daemon.cpp, Running).
struct Day {
  explicit Day(const std::filesystem::path& directory)
      : directory_(directory),
        store_(open_store(directory / "history.db")),
        recorder_(&store_, recorder_config(),
                  [](const std::string& line) { fmt::print(stderr, "history: {}\n", line); }),
        recent_(kRetainedTasks, &recorder_),
        sampler_(*gpus_, *host_, sampler_config()),
        monitor_(sampler_),
        service_(monitor_, service_config(), &recent_),
        metrics_(sampler_, {}) {
    worker_ = service_.identify(static_cast<Pid>(::getpid()), ::getuid());
  }

  static gpumeter::store::Store open_store(const std::filesystem::path& path) {
    auto store = gpumeter::store::Store::open(
        path, {.host = "day", .page_cache_kib = gpumeter::store::kLongLivedPageCacheKib});
    if (!store) throw std::runtime_error(store.error().message);
    return std::move(*store);
  }

  static gpumeter::recorder::RecorderConfig recorder_config() {
    return {.record_interval_us = kRecordIntervalUs, .sampler_interval_us = kSecondUs};
  }

  gpumeter::SamplerConfig sampler_config() {
    gpumeter::SamplerConfig config;
    config.series.horizon_us = std::chrono::microseconds(kHorizon).count();
    config.on_snapshot = [this](const gpumeter::Snapshot& s) { recorder_.observe(s); };
    return config;
  }

  static gpumeter::task::ServiceConfig service_config() {
    gpumeter::task::ServiceConfig config;
    config.limits.retained_tasks = kRetainedTasks;
    config.daemon.instance = 1;
    return config;
  }

  // One simulated second: its tasks, the round that ends it, the settling, a scrape, and the
  // record interval's or minute's work when due.
  void second(TimeUs start_us) {
    for (int k = 0; k < kTasksPerSecond; ++k) {
      const TimeUs begin_us = start_us + (k * kSecondUs / kTasksPerSecond);
      const auto begun = service_.handle(
          R"({"op":"begin","name":"frame","labels":{"stream":"cam3","model":"detector-v7"}})",
          worker_, begin_us);
      const auto reply = nlohmann::json::parse(begun.reply, nullptr, false);
      if (!reply.is_object() || !reply.value("ok", false) || !reply.contains("task")) {
        ++task_errors;
        continue;
      }
      const std::string id = reply["task"].dump();
      const auto ended = service_.handle(fmt::format(R"({{"op":"end","task":{}}})", id), worker_,
                                         begin_us + kTaskLengthUs);
      if (!ended.waiting) ++task_errors;
    }
    const TimeUs now_us = start_us + kSecondUs;
    clock.step_to(now_us);
    if (!sampler_.sample_once(now_us)) ++round_errors;
    ++rounds;
    tasks_settled += service_.advance(now_us).size();
    if (metrics_.current() == nullptr) ++scrape_errors;
    if ((now_us - kEpochUs) % kRecordIntervalUs == 0) {
      if (const auto complete = gpumeter::recorder::Recorder::complete_until(sampler_))
        recorder_.record(sampler_, std::min(now_us, *complete), now_us);
    }
    if ((now_us - kEpochUs) % kMinuteUs == 0) malloc_trim(0);
  }

  std::uintmax_t database_bytes() const {
    std::uintmax_t total = 0;
    for (const auto& entry : std::filesystem::directory_iterator(directory_)) {
      if (entry.is_regular_file()) total += entry.file_size();
    }
    return total;
  }

  std::size_t series_bytes() const { return sampler_.stats().series_bytes; }

  std::uint64_t rounds = 0;
  std::uint64_t round_errors = 0;
  std::uint64_t task_errors = 0;
  std::uint64_t scrape_errors = 0;
  std::uint64_t tasks_settled = 0;
  Clock clock;

 private:
  std::unique_ptr<gpumeter::GpuSource> open_gpus() {
    setenv("GPUMETER_SIM_SCENARIO", GPUMETER_BENCH_SCENARIO, 1);
    setenv("GPUMETER_SIM_EPOCH_US", std::to_string(kEpochUs).c_str(), 1);
    auto nvml = gpumeter::nvml::open_nvml_source({.library_path = GPUMETER_SIM_LIBRARY});
    if (!nvml) throw std::runtime_error(nvml.error().message);
    return std::make_unique<ChurningGpus>(std::move(*nvml), churn_, clock);
  }
  std::unique_ptr<gpumeter::ProcessSource> open_host() {
    auto scenario = gpumeter::sim::open_scenario_host(GPUMETER_BENCH_SCENARIO, nullptr);
    if (!scenario) throw std::runtime_error(scenario.error().message);
    return std::make_unique<ChurningHost>(std::move(*scenario), churn_);
  }

  std::filesystem::path directory_;
  Churn churn_{clock};
  std::unique_ptr<gpumeter::GpuSource> gpus_ = open_gpus();
  std::unique_ptr<gpumeter::ProcessSource> host_ = open_host();
  gpumeter::store::Store store_;
  gpumeter::recorder::Recorder recorder_;
  gpumeter::task::RecentResults recent_;
  gpumeter::Sampler sampler_;
  gpumeter::task::SamplerMonitor monitor_;
  gpumeter::task::Service service_;
  gpumeter::exposition::MetricsCache metrics_;
  gpumeter::task::Caller worker_;
};

// A temporary directory for the day's database, removed at the end.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-day-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

int run(const Options& options) {
  const TemporaryDirectory directory;
  Day day(directory.path());
  std::optional<std::ofstream> csv;
  if (options.csv) {
    csv.emplace(*options.csv);
    *csv << "hour,heap_in_use_bytes,rss_bytes,series_bytes,database_bytes,descriptors,"
            "cpu_ms_per_round\n";
  }
  fmt::print("{:>5} {:>12} {:>10} {:>11} {:>12} {:>4} {:>14} {:>9}\n", "hour", "heap in use",
             "VmRSS", "series", "database", "fds", "CPU per round", "wall");
  std::vector<double> hours_after_warm_up;
  std::vector<double> heap_after_warm_up;
  const auto wall_start = std::chrono::steady_clock::now();
  const TimeUs row_us = options.row_minutes * kMinuteUs;
  for (TimeUs row_end = row_us; row_end <= options.hours * kHourUs; row_end += row_us) {
    const double hour = static_cast<double>(row_end) / static_cast<double>(kHourUs);
    const double cpu_before = cpu_seconds();
    const std::uint64_t rounds_before = day.rounds;
    for (TimeUs t = kEpochUs + row_end - row_us; t < kEpochUs + row_end; t += kSecondUs) {
      day.second(t);
    }
    malloc_trim(0);
    const double heap = heap_in_use_bytes();
    const double rss = rss_bytes();
    const double cpu_ms =
        (cpu_seconds() - cpu_before) * 1e3 / static_cast<double>(day.rounds - rounds_before);
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const std::size_t descriptors = open_descriptors();
    fmt::print(
        "{:>5.2f} {:>8.1f} MiB {:>6.1f} MiB {:>7.1f} MiB {:>8.1f} MiB {:>4} {:>11.2f} ms {:>7.0f} "
        "s\n",
        hour, mib(heap), mib(rss), mib(static_cast<double>(day.series_bytes())),
        mib(static_cast<double>(day.database_bytes())), descriptors, cpu_ms, wall_s);
    std::fflush(stdout);
    if (csv) {
      *csv << fmt::format("{:.4g},{:.0f},{:.0f},{},{},{},{:.3f}\n", hour, heap, rss,
                          day.series_bytes(), day.database_bytes(), descriptors, cpu_ms);
    }
    if (row_end > kWarmUpUs) {
      hours_after_warm_up.push_back(hour);
      heap_after_warm_up.push_back(mib(heap));
    }
  }
  fmt::print(
      "rounds {} (errors {}), tasks settled {} (errors {}), scrapes rendered {} (errors {})\n"
      "heap in use after the warm-up: slope {:+.3f} MiB per simulated hour\n",
      day.rounds, day.round_errors, day.tasks_settled, day.task_errors, day.rounds,
      day.scrape_errors, slope(hours_after_warm_up, heap_after_warm_up));
  const int status = day.round_errors + day.task_errors + day.scrape_errors == 0 ? 0 : 1;
  if (!options.teardown) std::_Exit(status);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = parse_options(std::span(argv, static_cast<std::size_t>(argc)));
  if (!options) {
    fmt::print(stderr, "usage: {} [--hours N] [--row-minutes N] [--csv FILE] [--no-teardown]\n",
               argv[0]);
    return 2;
  }
  try {
    return run(*options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "day_bench: {}\n", e.what());
    return 1;
  }
}
