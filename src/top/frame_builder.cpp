// SPDX-License-Identifier: MIT
#include "top/frame_builder.h"

#include <fmt/format.h>

#include <limits>

#include "core/metrics.h"
#include "view/gpu_status.h"
#include "view/humanize.h"
#include "view/sm_unknown.h"

namespace gpumeter::top {
namespace {

using enum DeviceMetric;

void push(History& history, double value) {
  history.push_back(value);
  if (history.size() > kHistoryPoints) history.erase(history.begin());
}

GpuRow device_row(const Device& device, const Snapshot& snapshot, const GpuHistory& history) {
  GpuRow row;
  row.gpu = device.identity.index;
  row.label = fmt::format("{}", row.gpu);
  row.name = device.identity.name ? short_gpu_name(*device.identity.name)
                                  : std::string(view::kNotAvailable);
  std::tie(row.status, row.tone) = status_words(view::gpu_status(device, snapshot.processes));
  const DeviceState& s = device.state;
  row.sm_percent = s[utilization_gpu];
  row.memory_used_bytes = s[memory_used];
  row.memory_total_bytes = s[memory_total];
  row.power_watts = s[power_draw];
  row.power_limit_watts = s[power_limit];
  row.temperature_celsius = s[temperature];
  if (const GpuHistory::Histories* h = history.of(row.gpu)) {
    row.sm_history = h->sm;
    row.memory_history = h->memory;
    row.power_history = h->power;
    row.temperature_history = h->temperature;
  }
  if (device.lost) row.note = kLostGpuNote;
  if (device.mig && device.mig->enabled) row.note = view::sm_unknown_text("mig");
  return row;
}

GpuRow mig_row(const Device& device, const MigDevice& mig) {
  GpuRow row;
  row.kind = RowKind::mig;
  row.gpu = device.identity.index;
  row.label = fmt::format("{}/{}.{}", row.gpu, mig.gpu_instance_id, mig.compute_instance_id);
  row.name = fmt::format("MIG {}", mig.profile.value_or("?"));
  const bool busy = mig.processes && !mig.processes->empty();
  row.status = busy ? "in use" : "free";
  row.tone = busy ? Tone::busy : Tone::free;
  row.sm_percent = std::unexpected(Unavailable::mig);
  row.memory_used_bytes = mig.memory_used_bytes;
  row.memory_total_bytes = mig.memory_total_bytes;
  row.power_watts = std::unexpected(Unavailable::mig);
  row.temperature_celsius = std::unexpected(Unavailable::mig);
  return row;
}

GpuRow vgpu_row(const Device& device, const VgpuInstance& instance) {
  GpuRow row;
  row.kind = RowKind::vgpu;
  row.gpu = device.identity.index;
  row.label = fmt::format("{} vm", row.gpu);
  row.name = short_gpu_name(instance.type_name.value_or(std::string(view::kNotAvailable))) + " " +
             instance.vm_id.value_or("?");
  row.status = "VM";
  row.tone = Tone::busy;
  row.sm_percent = instance.utilization
                       ? Maybe<double>(instance.utilization->sm)
                       : Maybe<double>(std::unexpected(instance.utilization.error()));
  if (instance.fb_used_bytes) row.memory_used_bytes = static_cast<double>(*instance.fb_used_bytes);
  row.power_watts = std::unexpected(Unavailable::not_supported);
  row.temperature_celsius = std::unexpected(Unavailable::not_supported);
  return row;
}

ProcessRow process_row(const Device& device, const GpuProcess& process, const Snapshot& snapshot) {
  ProcessRow row;
  row.gpu = device.identity.index;
  row.gpu_label = process.mig ? fmt::format("{}/{}.{}", row.gpu, process.mig->gpu_instance_id,
                                            process.mig->compute_instance_id)
                              : fmt::format("{}", row.gpu);
  row.pid = process.pid;
  const Maybe<HostProcess>& host = view::host_view(snapshot.processes, process.pid);
  row.user = view::owner_name(host).value_or("?");
  if (host) {
    if (const std::optional<Container>& container = host->container; container.has_value())
      row.container = container->runtime + ":" + container->id.substr(0, 12);
  }
  row.command = view::full_command(host).value_or(std::string(view::kNotAvailable));
  if (process.used_memory_bytes)
    row.gpu_memory_bytes = static_cast<double>(*process.used_memory_bytes);
  else
    row.gpu_memory_bytes = std::unexpected(process.used_memory_bytes.error());
  row.use = process.recent_use;
  if (host && host->start_time_us) row.age_us = snapshot.time_us - *host->start_time_us;
  if (!host) {
    row.cpu_percent = std::unexpected(host.error());
    row.rss_bytes = std::unexpected(host.error());
  } else {
    row.cpu_percent = host->cpu_percent;
    if (host->rss_bytes)
      row.rss_bytes = static_cast<double>(*host->rss_bytes);
    else
      row.rss_bytes = std::unexpected(host->rss_bytes.error());
  }
  return row;
}

// A process inside a VM: its instance's use; what the host cannot know is N/A.
ProcessRow vm_process_row(const Device& device, const VgpuProcess& process) {
  ProcessRow row;
  row.gpu = device.identity.index;
  row.gpu_label = fmt::format("{} vm", row.gpu);
  row.pid = process.pid;
  row.user = "(VM)";
  row.command = process.name;
  const VgpuUtilization& u = process.utilization;
  row.use = RecentEngineUse{.sm_percent = u.sm,
                            .memory_percent = u.memory,
                            .encoder_percent = u.encoder,
                            .decoder_percent = u.decoder,
                            .window_us = 0};
  row.gpu_memory_bytes = std::unexpected(Unavailable::not_supported);
  row.cpu_percent = std::unexpected(Unavailable::not_supported);
  row.rss_bytes = std::unexpected(Unavailable::not_supported);
  row.age_us = std::unexpected(Unavailable::not_supported);
  return row;
}

}  // namespace

std::pair<std::string, Tone> status_words(view::GpuStatus status) {
  switch (status) {
    case view::GpuStatus::free: return {"free", Tone::free};
    case view::GpuStatus::in_use: return {"in use", Tone::busy};
    case view::GpuStatus::unknown_owner: return {"owner ?", Tone::alert};
    case view::GpuStatus::unknown: return {"unknown", Tone::alert};
    case view::GpuStatus::lost: return {"lost", Tone::alert};
    case view::GpuStatus::vgpu_host: return {"vGPU", Tone::busy};
  }
  return {"", Tone::plain};
}

std::string short_gpu_name(std::string_view name) {
  if (name.starts_with("NVIDIA ")) name.remove_prefix(7);
  return std::string(name);
}

std::string driver_text(const std::optional<std::string>& driver,
                        const std::optional<std::string>& cuda) {
  return fmt::format("driver {} CUDA {}", driver.value_or(std::string(view::kNotAvailable)),
                     cuda.value_or(std::string(view::kNotAvailable)));
}

void GpuHistory::add(const Snapshot& snapshot) {
  if (!begin_round(snapshot.time_us)) return;
  for (const Device& device : snapshot.gpus.devices) {
    const DeviceState& s = device.state;
    // A reading that is absent is a gap in the sparkline, never a 0.
    constexpr double kGap = std::numeric_limits<double>::quiet_NaN();
    const double total = s[memory_total].value_or(0.0);
    add(device.identity.index,
        Point{.sm = s[utilization_gpu].value_or(kGap),
              .memory = total > 0 && s[memory_used] ? 100.0 * *s[memory_used] / total : kGap,
              .power = s[power_draw].value_or(kGap),
              .temperature = s[temperature].value_or(kGap)});
  }
}

bool GpuHistory::begin_round(TimeUs time_us) {
  if (time_us <= last_us_) return false;
  last_us_ = time_us;
  return true;
}

void GpuHistory::add(std::uint32_t gpu, const Point& point) {
  Histories& h = gpus_[gpu];
  push(h.sm, point.sm);
  push(h.memory, point.memory);
  push(h.power, point.power);
  push(h.temperature, point.temperature);
}

void GpuHistory::seed(std::uint32_t gpu, Histories histories) {
  for (History* h : {&histories.sm, &histories.memory, &histories.power, &histories.temperature}) {
    if (h->size() > kHistoryPoints)
      h->erase(h->begin(), h->end() - static_cast<std::ptrdiff_t>(kHistoryPoints));
  }
  gpus_[gpu] = std::move(histories);
}

const GpuHistory::Histories* GpuHistory::of(std::uint32_t gpu) const {
  const auto found = gpus_.find(gpu);
  return found == gpus_.end() ? nullptr : &found->second;
}

Frame build_frame(const Snapshot& snapshot, const GpuHistory& history, std::string error) {
  Frame frame;
  frame.host = snapshot.hostname;
  frame.driver = driver_text(value_of(snapshot.gpus.driver.driver_version),
                             value_of(snapshot.gpus.driver.cuda_driver_version));
  frame.time_us = snapshot.time_us;
  frame.error = std::move(error);
  for (const Device& device : snapshot.gpus.devices) {
    frame.gpus.push_back(device_row(device, snapshot, history));
    if (device.mig && device.mig->enabled) {
      for (const MigDevice& mig : device.mig->devices) frame.gpus.push_back(mig_row(device, mig));
    }
    if (device.vgpu) {
      for (const VgpuInstance& instance : device.vgpu->instances)
        frame.gpus.push_back(vgpu_row(device, instance));
      if (device.vgpu->processes) {
        for (const VgpuProcess& process : *device.vgpu->processes)
          frame.processes.push_back(vm_process_row(device, process));
      }
    }
    if (!device.processes) continue;
    for (const GpuProcess& process : *device.processes)
      frame.processes.push_back(process_row(device, process, snapshot));
  }
  return frame;
}

}  // namespace gpumeter::top
