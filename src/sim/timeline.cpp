// SPDX-License-Identifier: MIT
#include "sim/timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/pid_file.h"

namespace gpumeter::sim {
namespace {

unsigned percent(double value) {
  return static_cast<unsigned>(std::clamp(std::lround(value), 0L, 100L));
}

// The sample period k covers ((k-1)P, kP]; this is the newest complete one at `now`.
SimUs floor_div(SimUs a, SimUs b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0);
}

unsigned scaled(unsigned idle, unsigned max, double utilization) {
  return static_cast<unsigned>(
      std::lround(idle + (static_cast<double>(max) - idle) * utilization / 100.0));
}

Clocks clocks_at(const DeviceSpec& d, double utilization) {
  return Clocks{scaled(d.clocks.graphics, d.max_clocks.graphics, utilization),
                scaled(d.clocks.sm, d.max_clocks.sm, utilization),
                scaled(d.clocks.memory, d.max_clocks.memory, utilization),
                scaled(d.clocks.video, d.max_clocks.video, utilization)};
}

double power_mw(const DeviceSpec& d, double utilization) {
  return d.power_w.at(utilization) * 1000.0;
}

Use scaled_use(const Use& sum, double factor) {
  return Use{sum.sm * factor, sum.mem * factor, sum.enc * factor, sum.dec * factor};
}

}  // namespace

UsePercent rounded(const Use& use) {
  return UsePercent{percent(use.sm), percent(use.mem), percent(use.enc), percent(use.dec)};
}

Timeline::Timeline(const Scenario& scenario)
    : scenario_(scenario),
      on_device_(scenario.devices.size()),
      pid_files_(std::ranges::any_of(scenario.processes,
                                     [](const ProcessSpec& p) { return !p.pid_file.empty(); })) {
  for (const ProcessSpec& p : scenario_.processes) {
    if (p.device < on_device_.size()) on_device_[p.device].push_back(&p);
  }
  lives_.reserve(on_device_.size());
  for (const auto& processes : on_device_) lives_.emplace_back(processes);
  in_vms_.resize(scenario_.devices.size());
  vgpus_.resize(scenario_.devices.size());
  for (const VgpuInstanceSpec& v : scenario_.vgpu.instances) {
    if (v.device >= vgpus_.size()) continue;
    vgpus_[v.device].push_back(&v);
    for (const VgpuProcessSpec& p : scenario_.vgpu.processes) {
      if (p.instance == v.id) in_vms_[v.device].push_back(&p);
    }
  }
  pids_.resize(scenario_.processes.size());
  for (std::size_t i = 0; i < pids_.size(); ++i) pids_[i] = scenario_.processes[i].pid;
  refresh_pids();
}

void Timeline::refresh_pids() {
  if (!pid_files_) return;  // the scenario's pids, set once
  pids_.resize(scenario_.processes.size());
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    const ProcessSpec& p = scenario_.processes[i];
    pids_[i] = p.pid_file.empty() ? std::optional(p.pid) : live_pid_in(p.pid_file);
  }
}

std::optional<std::uint32_t> Timeline::pid_of(const ProcessSpec& process) const {
  const auto* first = scenario_.processes.data();
  if (&process >= first && &process < first + pids_.size()) {
    return pids_[static_cast<std::size_t>(&process - first)];
  }
  return process.pid_file.empty() ? std::optional(process.pid) : live_pid_in(process.pid_file);
}

bool Timeline::lost(std::size_t device, double t) const {
  return std::ranges::any_of(scenario_.faults.lost,
                             [&](const LostFault& f) { return f.device == device && f.at_s <= t; });
}

std::vector<const ProcessSpec*> Timeline::processes(std::size_t device, double t) const {
  std::vector<const ProcessSpec*> out = lives_[device].overlapping(t, t);
  std::erase_if(out, [&](const ProcessSpec* p) { return !pid_of(*p); });
  return out;
}

Use Timeline::process_mean(const ProcessSpec& p, double a, double b) const {
  const double from = std::max(a, p.start_s);
  const double to = std::min(b, p.end_s);
  if (b <= a) return Use{p.sm.at(a), p.mem.at(a), p.enc.at(a), p.dec.at(a)};
  if (to <= from) return Use{};
  const Use sum{p.sm.integral(from, to), p.mem.integral(from, to), p.enc.integral(from, to),
                p.dec.integral(from, to)};
  return scaled_use(sum, 1.0 / (b - a));
}

std::optional<std::uint64_t> Timeline::process_memory(const ProcessSpec& p, double t) const {
  if (!p.memory_bytes) return std::nullopt;
  if (!p.alive(t)) return 0;
  return static_cast<std::uint64_t>(std::llround(p.memory_bytes->at(t)));
}

// Per-engine sum of the processes alive at t, capped at 100, or the scripted values.
Use Timeline::instant(std::size_t device, double t) const {
  Use sum;
  for (const ProcessSpec* p : processes(device, t)) {
    sum.sm += p->sm.at(t);
    sum.mem += p->mem.at(t);
    sum.enc += p->enc.at(t);
    sum.dec += p->dec.at(t);
  }
  // A vGPU host's board is busy with its VMs' work (the instances' use is a share of it).
  for (const VgpuProcessSpec* p : in_vms_[device]) {
    if (!p->alive(t)) continue;
    sum.sm += p->sm.at(t);
    sum.mem += p->mem.at(t);
    sum.enc += p->enc.at(t);
    sum.dec += p->dec.at(t);
  }
  const DeviceSpec& d = scenario_.devices[device];
  if (d.scripted_gpu_utilization) sum.sm = d.scripted_gpu_utilization->at(t);
  if (d.scripted_memory_utilization) sum.mem = d.scripted_memory_utilization->at(t);
  return Use{std::min(sum.sm, 100.0), std::min(sum.mem, 100.0), std::min(sum.enc, 100.0),
             std::min(sum.dec, 100.0)};
}

double Timeline::next_change(std::size_t device, double t) const {
  // What is summed at t changes when a process starts, ends or changes its use while alive;
  // the use of a process that is not alive counts for nothing.
  double next = lives_[device].next_start(t);
  for (const ProcessSpec* p : lives_[device].overlapping(t, t)) {
    next = std::min(next, p->end_s);
    for (const Profile* profile : {&p->sm, &p->mem, &p->enc, &p->dec})
      next = std::min(next, profile->next_change(t));
  }
  for (const VgpuProcessSpec* p : in_vms_[device]) {
    if (p->start_s > t) next = std::min(next, p->start_s);
    if (p->end_s > t) next = std::min(next, p->end_s);
    for (const Profile* profile : {&p->sm, &p->mem, &p->enc, &p->dec})
      next = std::min(next, profile->next_change(t));
  }
  const DeviceSpec& d = scenario_.devices[device];
  for (const auto& scripted : {d.scripted_gpu_utilization, d.scripted_memory_utilization}) {
    if (scripted) next = std::min(next, scripted->next_change(t));
  }
  return next;
}

Use Timeline::device_integral(std::size_t device, double a, double b) const {
  Use sum;
  for (double t = a; t < b;) {
    const double end = std::min(b, next_change(device, t));
    const Use u = instant(device, t);
    const double dt = end - t;
    sum = Use{sum.sm + u.sm * dt, sum.mem + u.mem * dt, sum.enc + u.enc * dt, sum.dec + u.dec * dt};
    t = end;
  }
  return sum;
}

Use Timeline::device_mean(std::size_t device, double a, double b) const {
  if (b <= a) return instant(device, a);
  return scaled_use(device_integral(device, a, b), 1.0 / (b - a));
}

DeviceReading Timeline::reading(std::size_t device, SimUs now) const {
  const DeviceSpec& d = scenario_.devices[device];
  const SimUs end = floor_div(now, d.sample_period_us) * d.sample_period_us;
  DeviceReading r;
  r.use = device_mean(device, seconds(end - d.sample_period_us), seconds(end));
  r.percent = rounded(r.use);
  for (const ProcessSpec* p : processes(device, seconds(now)))
    r.memory_used_bytes += process_memory(*p, seconds(now)).value_or(0);
  for (const VgpuInstanceSpec* v : vgpus_[device]) {
    if (v->alive(seconds(now)))
      r.memory_used_bytes +=
          static_cast<std::uint64_t>(std::llround(v->fb_used_bytes.at(seconds(now))));
  }
  r.memory_used_bytes =
      std::min(r.memory_used_bytes, d.memory_total_bytes - d.memory_reserved_bytes);
  r.power_mw = power_mw(d, r.use.sm);
  r.temperature_c = static_cast<unsigned>(std::lround(d.temperature_c.at(r.use.sm)));
  r.fan_percent = static_cast<unsigned>(std::lround(d.fan_percent.at(r.use.sm)));
  r.pstate = r.use.sm > 0 ? d.pstate_busy : d.pstate_idle;
  r.clocks = clocks_at(d, r.use.sm);
  r.pcie_tx_kbps =
      static_cast<unsigned>(std::lround(d.pci.tx_kbps_at_full_load * r.use.sm / 100.0));
  r.pcie_rx_kbps =
      static_cast<unsigned>(std::lround(d.pci.rx_kbps_at_full_load * r.use.sm / 100.0));
  return r;
}

namespace {

struct Ring {
  SimUs first = 1;  // sample index of the oldest sample
  SimUs last = 0;   // sample index of the newest; empty when last < first
};

Ring ring(const DeviceSpec& d, SimUs now) {
  const SimUs newest = floor_div(now, d.sample_period_us);
  const auto length = static_cast<SimUs>(
      std::ceil(d.sample_buffer_s * 1e6 / static_cast<double>(d.sample_period_us)));
  return Ring{std::max<SimUs>(1, newest - std::max<SimUs>(length, 1) + 1), newest};
}

}  // namespace

std::vector<DeviceSample> Timeline::device_samples(std::size_t device, SimUs now,
                                                   SimUs after) const {
  const DeviceSpec& d = scenario_.devices[device];
  const Ring r = ring(d, now);
  const SimUs first =
      after < 0 ? r.first : std::max(r.first, floor_div(after, d.sample_period_us) + 1);
  std::vector<DeviceSample> out;
  for (SimUs k = first; k <= r.last; ++k) {
    const Use use =
        device_mean(device, seconds((k - 1) * d.sample_period_us), seconds(k * d.sample_period_us));
    out.push_back(DeviceSample{k * d.sample_period_us, rounded(use), power_mw(d, use.sm),
                               clocks_at(d, use.sm)});
  }
  return out;
}

std::vector<ProcessSample> Timeline::process_samples(std::size_t device, SimUs now,
                                                     SimUs after) const {
  const DeviceSpec& d = scenario_.devices[device];
  const Ring r = ring(d, now);
  std::vector<ProcessSample> newest_first;
  for (SimUs k = r.last; k >= r.first && k * d.sample_period_us > after &&
                         newest_first.size() < d.process_sample_capacity;
       --k) {
    const double a = seconds((k - 1) * d.sample_period_us);
    const double b = seconds(k * d.sample_period_us);
    for (const ProcessSpec* p : lives_[device].overlapping(a, b)) {
      if (newest_first.size() >= d.process_sample_capacity) break;
      const std::optional<std::uint32_t> pid = pid_of(*p);
      if (!pid) continue;
      const UsePercent use = rounded(process_mean(*p, a, b));
      if (use.any()) newest_first.push_back(ProcessSample{*pid, k * d.sample_period_us, use});
    }
  }
  return {newest_first.rbegin(), newest_first.rend()};
}

std::vector<ProcessSample> Timeline::process_averages(std::size_t device, SimUs now,
                                                      SimUs after) const {
  const DeviceSpec& d = scenario_.devices[device];
  const Ring r = ring(d, now);
  const SimUs first =
      after < 0 ? r.first : std::max(r.first, floor_div(after, d.sample_period_us) + 1);
  std::vector<ProcessSample> out;
  if (r.last < first) return out;
  const double a = seconds((first - 1) * d.sample_period_us);
  const double b = seconds(r.last * d.sample_period_us);
  for (const ProcessSpec* p : lives_[device].overlapping(a, b)) {
    if (out.size() >= d.process_sample_capacity) break;
    const std::optional<std::uint32_t> pid = pid_of(*p);
    if (!pid) continue;
    const UsePercent use = rounded(process_mean(*p, a, b));
    if (use.any()) out.push_back(ProcessSample{*pid, r.last * d.sample_period_us, use});
  }
  return out;
}

double Timeline::energy_mj(std::size_t device, double a, double b) const {
  if (b <= a) return 0;
  const DeviceSpec& d = scenario_.devices[device];
  const double busy_percent_seconds = device_integral(device, a, b).sm;
  const double joules =
      d.power_w.idle * (b - a) + (d.power_w.busy - d.power_w.idle) * busy_percent_seconds / 100.0;
  return joules * 1000.0;
}

AccountingRecord Timeline::account(const ProcessSpec& p, double t) const {
  const double end = std::min(t, p.end_s);
  const Use mean = process_mean(p, p.start_s, std::max(end, p.start_s));
  AccountingRecord r;
  r.pid = pid_of(p).value_or(0);
  r.gpu_utilization = end > p.start_s ? percent(mean.sm) : 0;
  r.memory_utilization = end > p.start_s ? percent(mean.mem) : 0;
  r.max_memory_bytes =
      p.memory_bytes
          ? static_cast<std::uint64_t>(std::llround(p.memory_bytes->max_over(p.start_s, end)))
          : UINT64_MAX;
  r.running = t < p.end_s;
  r.time_ms =
      r.running ? 0 : static_cast<std::uint64_t>(std::llround((p.end_s - p.start_s) * 1000.0));
  r.start_s = p.start_s;
  return r;
}

std::vector<AccountingRecord> Timeline::accounting(std::size_t device, double t) const {
  std::vector<const ProcessSpec*> started;
  for (const ProcessSpec& p : scenario_.processes) {
    if (p.device == device && p.start_s <= t && pid_of(p)) started.push_back(&p);
  }
  // By start time; processes that started together keep their scenario order.
  std::ranges::sort(started, [](const ProcessSpec* a, const ProcessSpec* b) {
    return a->start_s != b->start_s ? a->start_s < b->start_s : a < b;
  });
  std::vector<AccountingRecord> out;
  out.reserve(started.size());
  for (const ProcessSpec* p : started) out.push_back(account(*p, t));
  const std::size_t keep = scenario_.devices[device].accounting_buffer_size;
  if (out.size() > keep) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(keep));
  return out;
}

namespace {

// accounting()'s order: by start time, then scenario order.
bool listed_before(const ProcessSpec* a, const ProcessSpec* b) {
  return a->start_s != b->start_s ? a->start_s < b->start_s : a < b;
}

}  // namespace

std::vector<AccountingRecord> Timeline::accounting_of(std::size_t device, double t,
                                                      std::uint32_t pid) const {
  std::vector<const ProcessSpec*> started;
  std::vector<const ProcessSpec*> candidates;
  for (const ProcessSpec* p : on_device_[device]) {
    if (p->start_s > t) continue;
    const std::optional<std::uint32_t> p_pid = pid_of(*p);
    if (!p_pid) continue;
    started.push_back(p);
    if (*p_pid == pid) candidates.push_back(p);
  }
  std::ranges::sort(candidates, listed_before);
  // A candidate is in the buffer while fewer than the buffer's size are listed from it on.
  const std::size_t keep = scenario_.devices[device].accounting_buffer_size;
  std::vector<AccountingRecord> out;
  for (const ProcessSpec* c : candidates) {
    const auto from_it = std::ranges::count_if(
        started, [&](const ProcessSpec* p) { return p == c || listed_before(c, p); });
    if (static_cast<std::size_t>(from_it) <= keep) out.push_back(account(*c, t));
  }
  return out;
}

}  // namespace gpumeter::sim
