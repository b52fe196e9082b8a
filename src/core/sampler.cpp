// SPDX-License-Identifier: MIT
#include "core/sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <ranges>
#include <set>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include "core/device_sample_drain.h"
#include "core/recent_use.h"
#include "core/wall_clock.h"

namespace gpumeter {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How long a pid's start time is remembered after the pid was last seen: long enough for the
// driver's buffered samples of an exited process to be drained under its key.
constexpr TimeUs kStartTimeMemoryUs = 600'000'000;

SamplerConfig normalised(SamplerConfig config) {
  config.interval = std::max(config.interval, kMinSamplerInterval);
  config.series.interval_us =
      std::chrono::duration_cast<std::chrono::microseconds>(config.interval).count();
  return config;
}

// The round time from which the energy counter at `time_us` has its shape (core/energy_curve):
// the round that drained the power sample covering the first counter reading after it. Before
// that reading, or where the GPU gives no power samples, `time_us`: nothing to wait for yet.
TimeUs power_complete_after(const DeviceSeries& device, TimeUs time_us) {
  const RingBuffer<DeviceRecord>& records = device.samples();
  const std::size_t next = records.upper_bound(time_us);
  const std::optional<TimeUs> period = device.power_period_us();
  if (next == records.size() || !period || device.power().empty()) return time_us;
  const TimeUs reading = records[next].time_us;
  if (device.power().back().time_us >= reading) return time_us;
  return reading + *period;
}

// The driver answers each process's mean over the periods stamped after lastSeenTimeStamp,
// so that time decides what a drain's mean is spread over. Asked from the newest sample
// stored only, the answer would average over every idle period since (all of the buffer, the
// first time) and be stored as if it were recent. So a drain asks from the newest period the
// previous drain (at `previous_drain_us`) was answered for: the last end of a period on the
// grid of the newest stored stamp, allowing the driver a quarter period to publish a period
// after its end (of the GPU's period or the shortest driver period, whichever is shorter);
// with no stamp stored yet, from that much before the previous drain. A period answered
// already is never asked for twice (its stamp is at or before the newest stored).
TimeUs ask_after(std::optional<TimeUs> newest_stored_us, TimeUs previous_drain_us, TimeUs period_us,
                 TimeUs shortest_period_us) {
  const TimeUs published_by = previous_drain_us - std::min(period_us, shortest_period_us) / 4;
  if (!newest_stored_us) return published_by;
  if (published_by <= *newest_stored_us) return *newest_stored_us;
  return *newest_stored_us + (published_by - *newest_stored_us) / period_us * period_us;
}

// Drains between rounds come at most this often, whatever the driver's period.
constexpr auto kShortestDrainEvery = std::chrono::milliseconds(50);

struct Tick {
  SteadyClock::time_point at;
  std::uint64_t skipped = 0;
};

// The next tick of the schedule `previous` + k·interval after `now`. A round that overran
// skips the ticks it missed rather than running them back to back.
Tick next_tick(SteadyClock::time_point previous, SteadyClock::duration interval,
               SteadyClock::time_point now) {
  const SteadyClock::time_point next = previous + interval;
  if (next > now) return {next, 0};
  const auto missed = (now - next) / interval + 1;
  return {next + missed * interval, static_cast<std::uint64_t>(missed)};
}

std::optional<TimeUs> start_of(const Maybe<HostProcess>& process) {
  if (!process || !process->start_time_us) return std::nullopt;
  return *process->start_time_us;
}

// Start times of the pids seen lately. The host tells a pid's start time while the process
// lives; remembering it keys the samples the driver still reports after the process exited,
// and a new start time for a known pid reveals a reused pid.
class StartTimes {
 public:
  // The key of `pid` when the host told `fresh` (absent: it could not tell) at round time
  // `now`. Counts a reuse in `reuses`.
  ProcessKey resolve(Pid pid, std::optional<TimeUs> fresh, TimeUs now, std::uint64_t& reuses) {
    const auto it = known_.find(pid);
    if (!fresh) {
      if (it == known_.end()) return {pid, 0};
      it->second.seen_us = now;
      return {pid, it->second.start_us};
    }
    if (it != known_.end() && it->second.start_us != *fresh) ++reuses;
    known_.insert_or_assign(pid, Known{*fresh, now});
    return {pid, *fresh};
  }

  // As resolve, remembering nothing.
  ProcessKey peek(Pid pid, std::optional<TimeUs> fresh) const {
    if (fresh) return {pid, *fresh};
    const auto it = known_.find(pid);
    return {pid, it != known_.end() ? it->second.start_us : 0};
  }

  void forget_before(TimeUs t) {
    std::erase_if(known_, [t](const auto& entry) { return entry.second.seen_us < t; });
  }

 private:
  struct Known {
    TimeUs start_us = 0;
    TimeUs seen_us = 0;
  };
  std::map<Pid, Known> known_;
};

// The samples of one round, gathered without holding the series lock and stored at once.
struct Batch {
  struct Memory {
    std::uint32_t device = 0;
    ProcessKey key;
    ProcessMemorySample sample;
  };
  std::vector<std::pair<std::uint32_t, TimeUs>> periods;  // measured in this round
  struct Drain {
    std::uint32_t device = 0;
    TimeUs asked_after = 0;  // the lastSeenTimeStamp passed
    std::vector<KeyedGpuSample> samples;
  };
  std::vector<Drain> drains;
  std::vector<std::pair<std::uint32_t, std::vector<PowerSample>>> power;
  std::vector<std::pair<std::uint32_t, DeviceSample>> devices;
  std::vector<Memory> memory;
  std::vector<std::pair<ProcessKey, HostSample>> hosts;
  std::vector<VgpuReading> vgpu;
};

void store(Series& series, const Batch& batch, TimeUs now) {
  // The period first: storing a per-process sample reads it.
  for (const auto& [device, period] : batch.periods) series.set_sample_period_us(device, period);
  for (const Batch::Drain& d : batch.drains) {
    series.add_process_gpu_samples(d.device, d.samples, d.asked_after);
  }
  for (const auto& [device, power] : batch.power) series.add_power_samples(device, power);
  for (const auto& [device, sample] : batch.devices) series.add_device_sample(device, sample);
  for (const Batch::Memory& m : batch.memory) {
    series.add_process_memory_sample(m.device, m.key, m.sample);
  }
  for (const auto& [key, sample] : batch.hosts) series.add_host_sample(key, sample);
  series.fold_before(now - series.config().fine_horizon_us);
  series.drop_before(now - series.config().horizon_us);
}

HostSample host_sample(TimeUs now, const ProcessUsage& usage) {
  return HostSample{.time_us = now,
                    .cpu_user_us = usage.cpu_user_us,
                    .cpu_system_us = usage.cpu_system_us,
                    .rss_bytes = usage.rss_bytes,
                    .peak_rss_bytes = usage.peak_rss_bytes};
}

void succeeded(SourceHealth& health, TimeUs now) {
  ++health.calls;
  health.last_success_us = now;
}

void failed(SourceHealth& health, TimeUs now, std::string message) {
  ++health.calls;
  ++health.failures;
  health.last_failure_us = now;
  health.last_error = std::move(message);
}

// A value, an expected absence (unsupported, lost GPU, exited or hidden process) or a failure.
template <class T, class Describe>
void note(SourceHealth& health, TimeUs now, const Maybe<T>& answer, Describe describe) {
  if (answer) {
    succeeded(health, now);
  } else if (answer.error() == Unavailable::error) {
    failed(health, now, describe());
  } else {
    ++health.calls;
  }
}

}  // namespace

struct Sampler::State {
  State(GpuSource& gpu_source, ProcessSource& host_source, SamplerConfig sampler_config)
      : gpus(gpu_source),
        host(host_source),
        config(normalised(std::move(sampler_config))),
        series(config.series) {}

  // One round's scratch: its time, the key of every pid resolved in it, its samples.
  struct Round {
    TimeUs now = 0;
    std::map<Pid, ProcessKey> keys;
    Batch batch;
  };

  std::expected<void, Error> run_round(TimeUs now);
  // A round under round_mutex; `taken` receives the snapshot it published, if any.
  std::expected<void, Error> run_round_locked(TimeUs now, std::shared_ptr<const Snapshot>& taken);
  void resolve_listed(Round& round, const Snapshot& collected);
  ProcessKey key_of(Round& round, Pid pid);
  void sample_device(Round& round, const Device& device);
  Maybe<void> drain(Round& round, std::uint32_t index);
  void drain_device_buffers(Round& round, std::uint32_t index);
  TimeUs period_of(const Round& round, std::uint32_t index) const;
  void sample_memory(Round& round, const Device& device);
  void sample_hosts(Round& round);
  void sample_host_usage(Round& round, const std::set<ProcessKey>& keys, UsageDetail detail);
  void store_round(const Round& round);
  void publish(std::shared_ptr<const Snapshot> fresh);
  void run(const std::stop_token& stop);
  void run_guarded();
  // Between two rounds: waits for `tick`, draining the per-process utilisation of the GPUs
  // every half driver period meanwhile, so that each of the driver's answers (a process's
  // mean since the last call) covers about one period (docs/attribution.md, "What the
  // sampler records").
  void wait_draining(const std::stop_token& stop, SteadyClock::time_point tick);
  SteadyClock::duration drain_every() const;
  void drain_between(TimeUs now);

  GpuSource& gpus;
  ProcessSource& host;
  const SamplerConfig config;

  // What only rounds (and key_for) touch; one at a time.
  mutable std::mutex round_mutex;
  StartTimes start_times;
  DeviceSampleDrain device_drains;
  // Per GPU, the processes of the last readable process list: a key missing from the next
  // list has left the GPU and gets a 0-byte memory sample.
  std::map<std::uint32_t, std::set<ProcessKey>> listed;
  SamplerStats working;  // copied to `stats` when a round is published
  // The GPUs whose per-process utilisation the last round could drain, with their driver
  // sample period (µs) as the series held it then.
  std::map<std::uint32_t, TimeUs> drainable;
  std::map<std::uint32_t, TimeUs> drained_at;  // per GPU, when its last drain was asked

  mutable std::mutex series_mutex;
  Series series;
  VgpuSeries vgpu_series{series.config()};  // guarded by series_mutex too

  mutable std::mutex watch_mutex;
  std::set<ProcessKey> watched;

  mutable std::mutex publish_mutex;
  mutable std::condition_variable published;
  std::shared_ptr<const Snapshot> snapshot;
  SamplerStats stats;

  std::atomic<std::uint64_t> skipped_ticks{0};
  std::mutex control_mutex;  // start() and stop()
  std::mutex wake_mutex;
  std::condition_variable_any wake;
  std::jthread thread;  // declared last: joined before the members it uses go away
};

std::expected<void, Error> Sampler::State::run_round(TimeUs now) {
  std::shared_ptr<const Snapshot> fresh;
  auto done = run_round_locked(now, fresh);
  // Without the sampler's locks, so that the observer may ask the sampler anything.
  if (fresh && config.on_snapshot) config.on_snapshot(*fresh);
  return done;
}

std::expected<void, Error> Sampler::State::run_round_locked(
    TimeUs now, std::shared_ptr<const Snapshot>& taken) {
  const auto started = SteadyClock::now();
  std::lock_guard lock(round_mutex);
  Round round{.now = now};
  ++working.rounds;
  working.last_round_us = now;
  auto collected = collect(gpus, host, config.collect, now);
  std::shared_ptr<const Snapshot> fresh;
  if (collected) {
    succeeded(working.gpu_read, now);
    resolve_listed(round, *collected);
    for (const Device& device : collected->gpus.devices) sample_device(round, device);
  } else {
    failed(working.gpu_read, now, collected.error().message);
  }
  sample_hosts(round);
  store_round(round);
  if (collected) {
    if (config.recent_figures) {
      const std::lock_guard series_lock(series_mutex);
      attach_recent_figures(*collected, series);
    }
    fresh = std::make_shared<const Snapshot>(std::move(*collected));
  }
  start_times.forget_before(now - kStartTimeMemoryUs);
  working.last_round_duration =
      std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - started);
  taken = fresh;
  publish(std::move(fresh));
  if (!collected) return std::unexpected(std::move(collected.error()));
  return {};
}

// The processes collect() described: their start times come with the snapshot.
void Sampler::State::resolve_listed(Round& round, const Snapshot& collected) {
  for (const auto& [pid, described] : collected.processes) {
    note(working.host, round.now, described, [process = pid] {
      return fmt::format("pid {}: the host could not describe it", process);
    });
    round.keys.emplace(
        pid, start_times.resolve(pid, start_of(described), round.now, working.pid_reuses));
  }
}

// The key of a pid met in this round; a pid not described yet is described now.
ProcessKey Sampler::State::key_of(Round& round, Pid pid) {
  if (const auto it = round.keys.find(pid); it != round.keys.end()) return it->second;
  const Maybe<HostProcess> described = host.describe(pid);
  note(working.host, round.now, described,
       [pid] { return fmt::format("pid {}: the host could not describe it", pid); });
  const ProcessKey key =
      start_times.resolve(pid, start_of(described), round.now, working.pid_reuses);
  round.keys.emplace(pid, key);
  return key;
}

void Sampler::State::sample_device(Round& round, const Device& device) {
  const std::uint32_t index = device.identity.index;
  // The device buffers first: the utilisation buffer tells the sample period a drain needs.
  if (!device.lost) drain_device_buffers(round, index);
  const Maybe<void> drained =
      device.lost ? Maybe<void>(std::unexpected(Unavailable::gpu_lost)) : drain(round, index);
  round.batch.devices.emplace_back(index, device_sample(round.now, device.state, drained));
  if (drained) {
    drainable[index] = period_of(round, index);
  } else {
    drainable.erase(index);
  }
  sample_memory(round, device);
  if (device.vgpu) {
    for (const VgpuInstance& instance : device.vgpu->instances)
      round.batch.vgpu.push_back(vgpu_reading(index, round.now, instance));
  }
}

// Drains the GPU's per-process utilisation; done when it could (even if nothing was busy),
// else why not (mig on a GPU in MIG mode).
Maybe<void> Sampler::State::drain(Round& round, std::uint32_t index) {
  const TimeUs period_us = period_of(round, index);
  std::optional<TimeUs> last_seen;
  {
    std::lock_guard lock(series_mutex);
    last_seen = series.last_seen_us(index);
  }
  // The first drain asks for the last period only (the last interval while the period is not
  // known): what came before is not covered anyway.
  const auto asked = drained_at.find(index);
  const TimeUs after = asked != drained_at.end()
                           ? ask_after(last_seen, asked->second, period_us,
                                       series.config().shortest_driver_period_us)
                           : round.now - std::min(period_us, series.config().interval_us);
  auto samples = gpus.drain_process_utilization(index, after);
  note(working.utilization_drain, round.now, samples,
       [&] { return fmt::format("GPU {}: per-process utilisation could not be read", index); });
  if (!samples) return std::unexpected(samples.error());
  std::vector<KeyedGpuSample> keyed;
  keyed.reserve(samples->size());
  for (const PidGpuSample& s : *samples) keyed.push_back({key_of(round, s.pid), s.sample});
  round.batch.drains.push_back({index, after, std::move(keyed)});
  drained_at[index] = round.now;
  return {};
}

// The GPU's driver sample period: measured in this round, else as the series holds it.
TimeUs Sampler::State::period_of(const Round& round, std::uint32_t index) const {
  for (const auto& [device, period] : round.batch.periods) {
    if (device == index) return period;
  }
  std::lock_guard lock(series_mutex);
  const DeviceSeries* known = series.device(index);
  return known != nullptr ? known->sample_period_us() : series.config().default_driver_period_us;
}

void Sampler::State::drain_device_buffers(Round& round, std::uint32_t index) {
  std::optional<TimeUs> last_power;
  {
    std::lock_guard lock(series_mutex);
    last_power = series.last_power_us(index);
  }
  DeviceSampleDrain::Drained drained = device_drains.drain(gpus, index, last_power);
  if (!drained.power.empty()) round.batch.power.emplace_back(index, std::move(drained.power));
  if (drained.period_us) round.batch.periods.emplace_back(index, *drained.period_us);
}

void Sampler::State::sample_memory(Round& round, const Device& device) {
  // An unreadable list tells nothing about who left; a lost GPU holds nobody's memory.
  if (!device.lost && !device.processes) return;
  const std::uint32_t index = device.identity.index;
  std::set<ProcessKey> now_listed;
  if (!device.lost) {
    for (const GpuProcess& process : *device.processes) {
      const ProcessKey key = key_of(round, process.pid);
      now_listed.insert(key);
      if (!process.used_memory_bytes) continue;
      round.batch.memory.push_back({index, key, {round.now, *process.used_memory_bytes}});
    }
  }
  std::set<ProcessKey>& before = listed[index];
  for (const ProcessKey& key : before) {
    if (!now_listed.contains(key)) round.batch.memory.push_back({index, key, {round.now, 0}});
  }
  before = std::move(now_listed);
}

// Every process met on a GPU in this round, and every watched process that still is the
// process it was; the high-water mark of resident memory only for the watched ones.
void Sampler::State::sample_hosts(Round& round) {
  std::set<ProcessKey> targets;
  for (const auto& [pid, key] : round.keys) targets.insert(key);
  std::set<ProcessKey> watching;
  {
    std::lock_guard lock(watch_mutex);
    watching = watched;
  }
  std::set<ProcessKey> followed;  // the processes whose peak is read too (tasks, runs)
  for (const ProcessKey& key : watching) {
    if (key_of(round, key.pid) == key) followed.insert(key);
  }
  for (const ProcessKey& key : followed) targets.erase(key);
  sample_host_usage(round, targets, UsageDetail::current);
  sample_host_usage(round, followed, UsageDetail::with_peak);
}

void Sampler::State::sample_host_usage(Round& round, const std::set<ProcessKey>& keys,
                                       UsageDetail detail) {
  for (const ProcessKey& key : keys) {
    const Maybe<ProcessUsage> used = host.usage(key.pid, detail);
    note(working.host, round.now, used,
         [&] { return fmt::format("pid {}: CPU and memory could not be read", key.pid); });
    if (used) round.batch.hosts.emplace_back(key, host_sample(round.now, *used));
  }
}

void Sampler::State::store_round(const Round& round) {
  std::lock_guard lock(series_mutex);
  store(series, round.batch, round.now);
  for (const VgpuReading& reading : round.batch.vgpu) vgpu_series.add(reading);
  vgpu_series.drop_before(round.now - series.config().horizon_us);
  working.series_bytes = series.allocated_bytes() + vgpu_series.allocated_bytes();
}

void Sampler::State::publish(std::shared_ptr<const Snapshot> fresh) {
  {
    std::lock_guard lock(publish_mutex);
    if (fresh) snapshot = std::move(fresh);
    stats = working;
  }
  published.notify_all();
}

void Sampler::State::run(const std::stop_token& stop) {
  const auto interval = std::chrono::duration_cast<SteadyClock::duration>(config.interval);
  SteadyClock::time_point tick = SteadyClock::now();
  while (!stop.stop_requested()) {
    run_guarded();
    const Tick next = next_tick(tick, interval, SteadyClock::now());
    tick = next.at;
    skipped_ticks += next.skipped;
    wait_draining(stop, tick);
  }
}

void Sampler::State::wait_draining(const std::stop_token& stop, SteadyClock::time_point tick) {
  const SteadyClock::duration every = drain_every();
  for (;;) {
    const SteadyClock::time_point now = SteadyClock::now();
    // The round at `tick` drains too: no drain shortly before it.
    const bool drains = every.count() > 0 && now + every + every / 2 < tick;
    {
      std::unique_lock lock(wake_mutex);
      wake.wait_until(lock, stop, drains ? now + every : tick, [] { return false; });
    }
    if (!drains || stop.stop_requested()) return;
    try {
      drain_between(wall_clock_us());
    } catch (const std::exception& e) {
      std::lock_guard lock(round_mutex);
      failed(working.utilization_drain, wall_clock_us(),
             fmt::format("draining per-process utilisation failed: {}", e.what()));
    }
  }
}

// Half the shortest driver period of a drainable GPU, at least kShortestDrainEvery; zero
// (no drains between rounds) when rounds come at least once per period.
SteadyClock::duration Sampler::State::drain_every() const {
  std::lock_guard lock(round_mutex);
  if (drainable.empty()) return {};
  const TimeUs shortest = std::ranges::min(drainable | std::views::values);
  const auto interval = std::chrono::duration_cast<std::chrono::microseconds>(config.interval);
  if (shortest >= interval.count()) return {};
  return std::max<SteadyClock::duration>(std::chrono::microseconds(shortest / 2),
                                         kShortestDrainEvery);
}

void Sampler::State::drain_between(TimeUs now) {
  std::lock_guard lock(round_mutex);
  Round round{.now = now};
  for (const auto& [index, period] : drainable) {
    drain_device_buffers(round, index);
    [[maybe_unused]] const Maybe<void> drained = drain(round, index);
  }
  std::lock_guard series_lock(series_mutex);
  store(series, round.batch, now);
}

// One round of the background thread. A failed round is already in the stats, and the
// schedule carries on; an exception (memory exhausted) must not end the thread, let alone
// cross it, so it is recorded as well.
void Sampler::State::run_guarded() {
  try {
    [[maybe_unused]] const auto done = run_round(wall_clock_us());
  } catch (const std::exception& e) {
    std::lock_guard lock(round_mutex);
    failed(working.gpu_read, wall_clock_us(), fmt::format("sampling round failed: {}", e.what()));
  }
}

Sampler::Sampler(GpuSource& gpus, ProcessSource& host, SamplerConfig config)
    : state_(std::make_unique<State>(gpus, host, std::move(config))) {}

Sampler::~Sampler() {
  stop();
}

std::expected<void, Error> Sampler::sample_once(TimeUs now_us) {
  return state_->run_round(now_us);
}

void Sampler::drain_between_rounds(TimeUs now_us) {
  state_->drain_between(now_us);
}

std::chrono::microseconds Sampler::drain_every() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(state_->drain_every());
}

void Sampler::start() {
  std::lock_guard lock(state_->control_mutex);
  if (state_->thread.joinable()) return;
  state_->thread =
      std::jthread([state = state_.get()](const std::stop_token& stop) { state->run(stop); });
}

void Sampler::stop() {
  std::lock_guard lock(state_->control_mutex);
  if (!state_->thread.joinable()) return;
  // The stop request wakes the thread's wait (condition_variable_any honours stop tokens).
  state_->thread.request_stop();
  state_->thread.join();
}

std::shared_ptr<const Snapshot> Sampler::snapshot() const {
  std::lock_guard lock(state_->publish_mutex);
  return state_->snapshot;
}

bool Sampler::wait_for_round(TimeUs time_us, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(state_->publish_mutex);
  return state_->published.wait_for(lock, timeout, [&] {
    return state_->stats.last_round_us && *state_->stats.last_round_us >= time_us;
  });
}

TimeUs Sampler::complete_after(TimeUs time_us) const {
  std::lock_guard lock(state_->series_mutex);
  const auto& devices = state_->series.devices();
  if (devices.empty()) return time_us + state_->config.series.default_driver_period_us;
  TimeUs complete = time_us;
  for (const auto& [index, device] : devices) {
    complete = std::max(
        {complete, time_us + device.sample_period_us(), power_complete_after(device, time_us)});
  }
  return complete;
}

std::optional<ProcessKey> Sampler::key_for(Pid pid) const {
  std::lock_guard lock(state_->round_mutex);
  const Maybe<HostProcess> described = state_->host.describe(pid);
  if (!described && described.error() == Unavailable::process_gone) return std::nullopt;
  return state_->start_times.peek(pid, start_of(described));
}

namespace {

bool lists(const Maybe<std::vector<GpuProcess>>& processes, Pid pid) {
  return processes && std::ranges::find(*processes, pid, &GpuProcess::pid) != processes->end();
}

// The GPUs whose process lists (or their MIG devices') named the process in the snapshot.
std::vector<std::uint32_t> gpus_listing(const Snapshot& snapshot, Pid pid) {
  std::vector<std::uint32_t> listing;
  for (const Device& device : snapshot.gpus.devices) {
    bool listed = lists(device.processes, pid);
    if (!listed && device.mig) {
      listed = std::ranges::any_of(device.mig->devices,
                                   [&](const MigDevice& mig) { return lists(mig.processes, pid); });
    }
    if (listed) listing.push_back(device.identity.index);
  }
  return listing;
}

}  // namespace

Maybe<GpuMemoryHeld> Sampler::gpu_memory_now(Pid pid) const {
  const std::shared_ptr<const Snapshot> newest = snapshot();
  if (!newest) return std::unexpected(Unavailable::no_data);
  const std::vector<std::uint32_t> devices = gpus_listing(*newest, pid);
  if (devices.empty()) return GpuMemoryHeld{};
  return state_->gpus.process_memory(pid, devices);
}

void Sampler::watch(const ProcessKey& key) {
  std::lock_guard lock(state_->watch_mutex);
  state_->watched.insert(key);
}

void Sampler::unwatch(const ProcessKey& key) {
  std::lock_guard lock(state_->watch_mutex);
  state_->watched.erase(key);
}

std::expected<Usage, Error> Sampler::usage(std::span<const ProcessKey> keys, Window window) const {
  std::lock_guard lock(state_->series_mutex);
  return gpumeter::usage(state_->series, keys, window);
}

SamplerStats Sampler::stats() const {
  std::lock_guard lock(state_->publish_mutex);
  SamplerStats copy = state_->stats;
  copy.skipped_ticks = state_->skipped_ticks.load();
  return copy;
}

void Sampler::inspect(const std::function<void(const Series&)>& reader) const {
  std::lock_guard lock(state_->series_mutex);
  reader(state_->series);
}

void Sampler::inspect_vgpu(const std::function<void(const VgpuSeries&)>& reader) const {
  std::lock_guard lock(state_->series_mutex);
  reader(state_->vgpu_series);
}

}  // namespace gpumeter
