// SPDX-License-Identifier: MIT
// Task markers through the real client library (libgpumeter-client.so) against a real
// `gpumeter daemon` process on the simulated 8 GPUs × 64 processes (bench/bench-8x64.json),
// one daemon sampling every 100 ms and one every second, each on a private socket.
//  - Begin: gpumeter_task_begin() alone (its task is ended outside the timing).
//  - EndNoWait: gpumeter_task_end(task, NULL), which tells the daemon not to wait for the
//    figures: the protocol's own cost (the task is begun outside the timing).
//  - BeginEndNoWait: both, one task's whole round trip.
//  - BeginEndWait: both, the end waiting for the figures as a worker that wants them does.
//    The daemon answers once a sampler round has stored the samples that cover the end (the
//    end plus the driver's sample period, 1/6 s here; docs/task-protocol.md), so this is
//    dominated by that deliberate wait: at least one period, at most a period plus an interval
//    plus a round, plus up to 20 ms until the daemon's server looks again. Each task lasts a
//    random fraction of an interval (not timed), so that ends fall at every phase of the
//    sampler's schedule as a real worker's do. `wait_p50_us`, `wait_p99_us`: the reply's
//    arrival minus the task's end time the daemon recorded (one wall clock).
// The benchmarks named `owner:gpu` run against a third daemon (1 s) whose scenario also lists
// the bench process itself on GPU 3 with 2 GiB: each begin and end then reads that GPU's process
// lists for the task's GPU memory at its edges. Elsewhere the bench process is on no GPU.
// Every benchmark reports the median and the 99th percentile of single calls (p50_us, p99_us)
// next to Google Benchmark's mean. The bench process itself is the task's owner; it has no GPU
// in the scenario, so its tasks get host figures only.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <gpumeter/gpumeter.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::int64_t wall_clock_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// The environment without GPUMETER_* variables, so that none steers the daemon.
std::vector<std::string> clean_environment() {
  std::vector<std::string> kept;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (!std::string_view(*variable).starts_with("GPUMETER_")) kept.emplace_back(*variable);
  }
  return kept;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// bench-8x64.json with the bench process itself listed on GPU 3, holding 2 GiB.
std::string scenario_with_the_bench_on_a_gpu() {
  std::error_code error;
  std::string text(std::filesystem::file_size(GPUMETER_BENCH_SCENARIO, error), '\0');
  std::ifstream(GPUMETER_BENCH_SCENARIO)
      .read(text.data(), static_cast<std::streamsize>(text.size()));
  constexpr std::string_view kList = "\"processes\": [";
  const auto at = text.find(kList);
  if (at == std::string::npos) return {};
  text.insert(at + kList.size(), R"(
    {"device": 3, "pid_env": "BENCH_OWNER_PID", "used_memory_bytes": 2147483648},)");
  return text;
}

// `gpumeter --simulate SCENARIO daemon` on a socket in a private directory; its output goes to
// daemon.log there. Stopped with SIGTERM on destruction. `scenario`: the scenario's text, when
// not bench-8x64.json.
class Daemon {
 public:
  explicit Daemon(std::chrono::milliseconds interval, const std::string& scenario = {})
      : interval_(interval) {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumeter-bench-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) return;
    directory_ = pattern;
    socket_ = (directory_ / "gpumeter.sock").string();
    scenario_ = GPUMETER_BENCH_SCENARIO;
    if (!scenario.empty()) {
      scenario_ = (directory_ / "scenario.json").string();
      std::ofstream(scenario_) << scenario;
    }
    start();
  }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  ~Daemon() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    if (!directory_.empty()) std::filesystem::remove_all(directory_, ignored);
  }

  // Empty when it runs and listens; else why not.
  const std::string& failure() const { return failure_; }
  const std::string& socket() const { return socket_; }
  std::chrono::milliseconds interval() const { return interval_; }

 private:
  void start() {
    std::vector<std::string> argv{
        GPUMETER_BIN, "--simulate", scenario_,    "daemon",
        "--socket",   socket_,      "--interval", std::to_string(interval_.count()) + "ms",
        "--no-http"};
    std::vector<std::string> env = clean_environment();
    env.push_back("BENCH_OWNER_PID=" + std::to_string(::getpid()));
    auto argv_pointers = pointers_to(argv);
    auto env_pointers = pointers_to(env);
    const std::string log = (directory_ / "daemon.log").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const int spawned = ::posix_spawn(&pid_, argv_pointers[0], &actions, nullptr,
                                      argv_pointers.data(), env_pointers.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      pid_ = 0;
      failure_ = "cannot start " + argv[0];
      return;
    }
    wait_until_listening(log);
  }

  void wait_until_listening(const std::string& log) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    struct stat info{};
    while (::stat(socket_.c_str(), &info) != 0) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_ || Clock::now() > deadline) {
        failure_ = "the daemon did not start; see " + log;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::chrono::milliseconds interval_;
  std::filesystem::path directory_;
  std::string scenario_;
  std::string socket_;
  pid_t pid_ = 0;
  std::string failure_;
};

// Single-call durations, reported as percentiles.
class Latencies {
 public:
  void add(double seconds) { seconds_.push_back(seconds); }

  void report(benchmark::State& state, std::string_view prefix = "") {
    if (seconds_.empty()) return;
    std::ranges::sort(seconds_);
    constexpr double kUsPerSecond = 1e6;
    state.counters[std::string(prefix) + "p50_us"] = at(0.50) * kUsPerSecond;
    state.counters[std::string(prefix) + "p99_us"] = at(0.99) * kUsPerSecond;
  }

 private:
  // The nearest-rank percentile q of the sorted values.
  double at(double q) const {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(seconds_.size())));
    return seconds_[std::max<std::size_t>(rank, 1) - 1];
  }

  std::vector<double> seconds_;
};

// A connected client of `daemon`, or why there is none.
struct Connection {
  explicit Connection(const Daemon& daemon) {
    if (!daemon.failure().empty()) {
      failure = daemon.failure();
    } else if (const int status = gpumeter_connect(daemon.socket().c_str(), &client);
               status != GPUMETER_OK) {
      failure = gpumeter_strerror(status);
    }
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { gpumeter_disconnect(client); }

  gpumeter_task* begin(benchmark::State& state) const {
    gpumeter_task* task = nullptr;
    const int status = gpumeter_task_begin(client, "bench", R"({"stage":"decode"})", &task);
    if (status != GPUMETER_OK) state.SkipWithError(gpumeter_strerror(status));
    return task;
  }

  gpumeter_client* client = nullptr;
  std::string failure;
};

void end_without_waiting(benchmark::State& state, gpumeter_task* task) {
  const int status = gpumeter_task_end(task, nullptr);
  if (status != GPUMETER_OK) state.SkipWithError(gpumeter_strerror(status));
}

// A task ended without waiting still counts against the daemon's limit of 1,024 open or ending
// tasks per process until its figures are computed, after the end plus the driver's sample
// period (1/6 s here) plus up to one interval. Each run starts after the previous run's tasks
// have settled, and runs fewer iterations than the limit.
constexpr int kIterations = 500;
// Each of these takes up to a period plus an interval.
constexpr int kWaitingIterations = 30;

void let_tasks_settle(const Daemon& daemon) {
  std::this_thread::sleep_for(daemon.interval() + std::chrono::milliseconds(500));
}

// Runs `timed` once per iteration; it returns the seconds of the part it timed, or a negative
// number after an error (already given to `state`).
template <class Timed>
void time_each(benchmark::State& state, const Daemon& daemon, Timed timed) {
  Connection connection(daemon);
  if (!connection.failure.empty()) {
    state.SkipWithError(connection.failure.c_str());
    return;
  }
  let_tasks_settle(daemon);
  Latencies latencies;
  for (auto _ : state) {
    const double seconds = timed(state, connection);
    if (seconds < 0) break;
    state.SetIterationTime(seconds);
    latencies.add(seconds);
  }
  latencies.report(state);
}

void begin_alone(benchmark::State& state, const Daemon& daemon) {
  time_each(state, daemon, [](benchmark::State& s, const Connection& c) {
    const auto start = Clock::now();
    gpumeter_task* task = c.begin(s);
    const double seconds = seconds_since(start);
    if (task == nullptr) return -1.0;
    end_without_waiting(s, task);
    return seconds;
  });
}

void end_alone(benchmark::State& state, const Daemon& daemon) {
  time_each(state, daemon, [](benchmark::State& s, const Connection& c) {
    gpumeter_task* task = c.begin(s);
    if (task == nullptr) return -1.0;
    const auto start = Clock::now();
    end_without_waiting(s, task);
    return seconds_since(start);
  });
}

void begin_end(benchmark::State& state, const Daemon& daemon) {
  time_each(state, daemon, [](benchmark::State& s, const Connection& c) {
    const auto start = Clock::now();
    gpumeter_task* task = c.begin(s);
    if (task == nullptr) return -1.0;
    end_without_waiting(s, task);
    return seconds_since(start);
  });
}

void begin_end_waiting(benchmark::State& state, const Daemon& daemon) {
  Latencies waits;
  std::mt19937 random(1);  // the same phases in every run
  std::uniform_int_distribution<std::int64_t> phase_us(
      0, std::chrono::microseconds(daemon.interval()).count());
  time_each(state, daemon, [&](benchmark::State& s, const Connection& c) {
    const auto begun = Clock::now();
    gpumeter_task* task = c.begin(s);
    if (task == nullptr) return -1.0;
    const double begin_seconds = seconds_since(begun);
    std::this_thread::sleep_for(std::chrono::microseconds(phase_us(random)));
    const auto start = Clock::now();
    gpumeter_task_result result{.struct_size = sizeof(gpumeter_task_result)};
    const int status = gpumeter_task_end(task, &result);
    const double seconds = begin_seconds + seconds_since(start);
    if (status != GPUMETER_OK) {
      s.SkipWithError(gpumeter_strerror(status));
      return -1.0;
    }
    waits.add(static_cast<double>(wall_clock_us() - result.end_time_us) / 1e6);
    return seconds;
  });
  waits.report(state, "wait_");
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  using std::chrono::milliseconds;
  const Daemon every_100ms(milliseconds(100));
  const Daemon every_second(milliseconds(1000));
  const Daemon bench_on_a_gpu(milliseconds(1000), scenario_with_the_bench_on_a_gpu());
  for (const auto& [daemon, label] : {std::pair{&every_100ms, "100ms"},
                                      {&every_second, "1s"},
                                      {&bench_on_a_gpu, "1s/owner:gpu"}}) {
    const std::string suffix = std::string("/interval:") + label;
    const auto run = [daemon](auto body) {
      return [daemon, body](benchmark::State& state) { body(state, *daemon); };
    };
    benchmark::RegisterBenchmark(("BM_Begin" + suffix).c_str(), run(begin_alone))
        ->UseManualTime()
        ->Iterations(kIterations)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_EndNoWait" + suffix).c_str(), run(end_alone))
        ->UseManualTime()
        ->Iterations(kIterations)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_BeginEndNoWait" + suffix).c_str(), run(begin_end))
        ->UseManualTime()
        ->Iterations(kIterations)
        ->Unit(benchmark::kMicrosecond);
    if (daemon == &bench_on_a_gpu) continue;  // the waiting end is the sampler's, as above
    benchmark::RegisterBenchmark(("BM_BeginEndWait" + suffix).c_str(), run(begin_end_waiting))
        ->UseManualTime()
        ->Iterations(kWaitingIterations)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
