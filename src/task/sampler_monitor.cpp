// SPDX-License-Identifier: MIT
#include "task/sampler_monitor.h"

#include <span>

#include "host/peak_rss_reset.h"

namespace gpumeter::task {

SamplerMonitor::SamplerMonitor(Sampler& sampler, const std::filesystem::path& root)
    : sampler_(sampler), procfs_(root), users_(root), root_(root) {}

std::optional<ProcessKey> SamplerMonitor::key_for(Pid pid) {
  return sampler_.key_for(pid);
}

std::optional<Uid> SamplerMonitor::uid_of(Pid pid) {
  const auto process = procfs_.describe(pid);
  if (!process || !process->uid) return std::nullopt;
  return *process->uid;
}

std::optional<std::string> SamplerMonitor::user_name(Uid uid) {
  return users_.name(uid);
}

void SamplerMonitor::watch(const ProcessKey& key) {
  sampler_.watch(key);
}

void SamplerMonitor::unwatch(const ProcessKey& key) {
  sampler_.unwatch(key);
  start_ticks_.erase(key);
}

EdgeReading SamplerMonitor::read_edge(const ProcessKey& key, bool reset_peak) {
  EdgeReading edge;
  // A pid that now names another process is not the owner any more. The start time in clock
  // ticks tells, from one small read and without waiting for a sampler round (key_for would).
  const auto ticks = host::process_start_ticks(root_, key.pid);
  const auto known = start_ticks_.try_emplace(key, ticks.value_or(0)).first;
  if (!ticks || *ticks != known->second) {
    const auto gone = std::unexpected(Unavailable::process_gone);
    return EdgeReading{gone, gone, gone, false, gone};
  }
  edge.gpu_memory = sampler_.gpu_memory_now(key.pid);
  const auto usage = procfs_.usage(key.pid, UsageDetail::with_peak);
  if (!usage) {
    const auto absent = std::unexpected(usage.error());
    return EdgeReading{absent, absent, absent, false, std::move(edge.gpu_memory)};
  }
  edge.cpu = CpuTimes{usage->cpu_user_us, usage->cpu_system_us};
  edge.rss_bytes = usage->rss_bytes;
  edge.peak_rss_bytes = usage->peak_rss_bytes;
  edge.peak_reset = reset_peak && host::reset_peak_rss(root_, key.pid).has_value();
  return edge;
}

std::optional<TimeUs> SamplerMonitor::last_sample_time_us() const {
  // Rounds in which the GPU source failed count too: their host samples are stored, and
  // waiting for a snapshot that may never come would only delay every end.
  return sampler_.stats().last_round_us;
}

TimeUs SamplerMonitor::complete_after(TimeUs time_us) const {
  // One period more than the samples covering the end: whether the process was idle in the
  // period after the one holding the end decides where that period's busy time belongs
  // (core/attribution.h, the markers estimate).
  return sampler_.complete_after(sampler_.complete_after(time_us));
}

std::expected<TaskFigures, std::string> SamplerMonitor::figures(const ProcessKey& key,
                                                                Window window) const {
  auto usage = sampler_.usage(std::span(&key, 1), window);
  if (!usage) return std::unexpected(std::move(usage.error().message));
  TaskFigures figures{std::move(*usage), {}};
  if (const auto snapshot = sampler_.snapshot()) {
    for (const Device& device : snapshot->gpus.devices) {
      if (device.identity.uuid) figures.gpu_uuids[device.identity.index] = *device.identity.uuid;
    }
  }
  return figures;
}

}  // namespace gpumeter::task
