// SPDX-License-Identifier: MIT
// An event-driven worker in C++: it idles, receives tasks at random times and marks each one
// with a scoped gpumeter::Task, printing what the daemon measured. Without a daemon it warns
// once and works unmeasured.
//
//   cpp_worker [TASKS [MAX_IDLE_MS]]        (defaults: 5 tasks, up to 2000 ms idle between)
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <gpumeter/gpumeter.hpp>
#include <random>
#include <string>
#include <thread>

namespace {

// Stand-in for real work (decoding a frame, running a model): spin the CPU.
void work(std::chrono::milliseconds duration) {
  const auto until = std::chrono::steady_clock::now() + duration;
  volatile unsigned long sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;
}

std::string fmt_number(double value) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.2f", value);
  return text.data();
}

void report(int number, const gpumeter::Result& result) {
  if (!result.ok() || result.figures.has_usage == 0) {
    std::printf("task %d: not measured (%s)\n", number, result.error());
    return;
  }
  const gpumeter_task_result& figures = result.figures;
  // An absent figure is NaN (a CPU-only task has no SM or energy figure): print N/A for it.
  const auto figure = [](double value, const char* unit) {
    return std::isnan(value) ? std::string("N/A") : fmt_number(value) + unit;
  };
  std::string gpu = figures.gpu_count == 0 ? std::string("no GPU")
                                           : std::to_string(figures.gpu_count) + " GPU(s), SM " +
                                                 figure(figures.sm_percent, "%") + ", " +
                                                 figure(figures.energy_joules, " J");
  std::printf("task %d: %.2f s; %s; CPU %s user\n", number, figures.duration_seconds, gpu.c_str(),
              figure(figures.cpu_user_seconds, " s").c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int tasks = argc > 1 ? std::stoi(argv[1]) : 5;
  const int max_idle_ms = argc > 2 ? std::stoi(argv[2]) : 2000;
  gpumeter::Client client;
  if (!client.connected()) {
    std::fprintf(stderr, "cpp_worker: tasks are not measured: %s\n",
                 gpumeter_strerror(client.status()));
  }
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> idle(0, max_idle_ms);
  std::uniform_int_distribution<int> busy(100, 500);
  for (int number = 0; number < tasks; ++number) {
    std::this_thread::sleep_for(std::chrono::milliseconds(idle(random)));
    auto task = client.task("decode", R"({"stream":"cam0"})");
    work(std::chrono::milliseconds(busy(random)));
    report(number, task.end());
  }
  return 0;
}
