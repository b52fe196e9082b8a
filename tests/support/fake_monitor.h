// SPDX-License-Identifier: MIT
// A scripted Monitor for the service and server tests: which processes are alive, when the
// sampler's last round was, and what figures it answers. Guarded by a mutex, so that a test
// thread may script it while a server thread reads it.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "task/monitor.h"

namespace gpumeter::task::testing {

inline constexpr TimeUs kT0 = 1'700'000'000'000'000;
inline constexpr TimeUs kSecond = 1'000'000;
inline constexpr TimeUs kPeriod = 166'667;

class FakeMonitor final : public Monitor {
 public:
  void set_alive(Pid pid, TimeUs start_time_us, Uid uid) {
    const std::scoped_lock lock(mutex_);
    alive_[pid] = {ProcessKey{pid, start_time_us}, uid};
  }
  void set_dead(Pid pid) {
    const std::scoped_lock lock(mutex_);
    alive_.erase(pid);
  }
  void set_round(TimeUs time_us) {
    const std::scoped_lock lock(mutex_);
    round_ = time_us;
  }
  void set_user(Uid uid, std::string name) {
    const std::scoped_lock lock(mutex_);
    names_[uid] = std::move(name);
  }
  std::vector<ProcessKey> watched() const {
    const std::scoped_lock lock(mutex_);
    return {watched_.begin(), watched_.end()};
  }
  std::vector<Window> windows() const {
    const std::scoped_lock lock(mutex_);
    return windows_;
  }

  // The readings read_edge() answers for `pid`, in order; once they run out, nothing can be
  // read (no_data). A reset is honoured only where the reading says peak_reset.
  void push_edge(Pid pid, EdgeReading reading) {
    const std::scoped_lock lock(mutex_);
    edges_[pid].push_back(reading);
  }
  // The reset_peak argument of each read_edge() call, in order.
  std::vector<bool> edge_resets() const {
    const std::scoped_lock lock(mutex_);
    return resets_;
  }

  EdgeReading read_edge(const ProcessKey& key, bool reset_peak) override {
    const std::scoped_lock lock(mutex_);
    resets_.push_back(reset_peak);
    auto& queue = edges_[key.pid];
    if (queue.empty()) return EdgeReading{};
    EdgeReading reading = queue.front();
    queue.erase(queue.begin());
    reading.peak_reset = reading.peak_reset && reset_peak;
    return reading;
  }

  std::optional<ProcessKey> key_for(Pid pid) override {
    const std::scoped_lock lock(mutex_);
    const auto it = alive_.find(pid);
    return it == alive_.end() ? std::nullopt : std::optional(it->second.key);
  }
  std::optional<Uid> uid_of(Pid pid) override {
    const std::scoped_lock lock(mutex_);
    const auto it = alive_.find(pid);
    return it == alive_.end() ? std::nullopt : std::optional(it->second.uid);
  }
  std::optional<std::string> user_name(Uid uid) override {
    const std::scoped_lock lock(mutex_);
    const auto it = names_.find(uid);
    return it == names_.end() ? std::nullopt : std::optional(it->second);
  }
  void watch(const ProcessKey& key) override {
    const std::scoped_lock lock(mutex_);
    watched_.insert(key);
  }
  void unwatch(const ProcessKey& key) override {
    const std::scoped_lock lock(mutex_);
    const auto it = watched_.find(key);
    if (it != watched_.end()) watched_.erase(it);
  }
  std::optional<TimeUs> last_sample_time_us() const override {
    const std::scoped_lock lock(mutex_);
    return round_;
  }
  // Samples are complete one (fake) driver period after a time.
  TimeUs complete_after(TimeUs time_us) const override { return time_us + kPeriod; }
  // One GPU at 80 % SM over the whole window, no energy counter.
  std::expected<TaskFigures, std::string> figures(const ProcessKey& /*key*/,
                                                  Window window) const override {
    const std::scoped_lock lock(mutex_);
    windows_.push_back(window);
    GpuUsage gpu;
    gpu.engines[0] = {static_cast<double>(window.length_us()) / 1e6 * 0.8, 80.0};
    gpu.energy.device_joules = std::unexpected(Unavailable::not_supported);
    gpu.confidence.coverage = 1.0;
    Usage usage{window, {gpu}, {}};
    usage.host.cpu_user_seconds = 0.5;
    return TaskFigures{usage, {{0, "GPU-test"}}};
  }

 private:
  struct Alive {
    ProcessKey key;
    Uid uid = 0;
  };
  mutable std::mutex mutex_;
  std::map<Pid, Alive> alive_;
  std::map<Uid, std::string> names_;
  std::multiset<ProcessKey> watched_;
  std::optional<TimeUs> round_;
  mutable std::vector<Window> windows_;
  std::map<Pid, std::vector<EdgeReading>> edges_;
  std::vector<bool> resets_;
};

}  // namespace gpumeter::task::testing
