// SPDX-License-Identifier: MIT
#include "run/summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "view/humanize.h"

namespace gpumeter::run {
namespace {

// Labels are padded to one column, so that the figures line up.
void line(std::string& out, std::string_view label, std::string_view value) {
  out += fmt::format("  {:<22}{}\n", label, value);
}

std::string exit_text(const RunExit& exit) {
  if (!exit.signal) return fmt::format("{}", exit.status);
  return fmt::format("{} (killed by {}{})", exit.status, signal_name(*exit.signal),
                     exit.core_dumped ? ", core dumped" : "");
}

std::string cpu_text(const RunResult& r) {
  const double busy = r.cpu_user_seconds + r.cpu_system_seconds;
  const double share = r.wall_seconds > 0 ? 100.0 * busy / r.wall_seconds : 0.0;
  return fmt::format("user {:.2f} s, system {:.2f} s ({:.0f}% of one CPU)", r.cpu_user_seconds,
                     r.cpu_system_seconds, share);
}

void memory_lines(std::string& out, const RunResult& r) {
  line(out, "peak RSS",
       fmt::format("{} (the largest process)",
                   view::format_bytes(static_cast<double>(r.max_rss_bytes))));
  if (!r.cgroup || !r.cgroup->memory_peak_bytes) return;
  line(out, "cgroup memory peak",
       fmt::format("{} (charged to the cgroup, page cache included)",
                   view::format_bytes(static_cast<double>(*r.cgroup->memory_peak_bytes))));
}

std::string limits_text(const host::Limits& limits) {
  std::vector<std::string> parts;
  if (limits.cpu) {
    parts.push_back(fmt::format(
        "{:g} CPUs' worth (quota {} per {} µs)",
        static_cast<double>(limits.cpu->quota_us) / static_cast<double>(limits.cpu->period_us),
        limits.cpu->quota_us, limits.cpu->period_us));
  }
  if (limits.cpuset) parts.push_back(fmt::format("CPUs {}", *limits.cpuset));
  if (limits.memory_bytes) {
    parts.push_back(
        fmt::format("memory {}", view::format_bytes(static_cast<double>(*limits.memory_bytes))));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string percent(const Maybe<double>& value) {
  return value ? fmt::format("{:.1f}%", *value) : std::string(view::kNotAvailable);
}

// "24.3% average, 80% peak".
std::string engine_text(const EngineUse& use) {
  return fmt::format("{} average, {} peak", percent(use.average_percent),
                     use.peak_percent ? fmt::format("{:.0f}%", *use.peak_percent)
                                      : std::string(view::kNotAvailable));
}

std::string joules(const Maybe<double>& value) {
  return value ? fmt::format("{:.1f} J", *value) : std::string(view::kNotAvailable);
}

bool nonzero(const EngineUse& use) {
  return use.average_percent && *use.average_percent > 0.0;
}

std::string confidence_text(const Confidence& confidence) {
  if (confidence.shorter_than_sample_period) {
    return fmt::format("low: the run is shorter than the driver's sample period ({:.2f} s)",
                       static_cast<double>(confidence.sample_period_us) / 1e6);
  }
  if (confidence.coverage < 1.0) {
    return fmt::format("low: sampled {:.0f}% of the run", 100.0 * confidence.coverage);
  }
  if (!confidence.shorter_than_coarse_bucket && confidence.sm_bounds_width_pp) {
    return fmt::format("low: the SM figures may be off by up to {:.1f} percentage points",
                       *confidence.sm_bounds_width_pp);
  }
  return fmt::format("low: the run is shorter than one bucket of the older samples ({:.2f} s)",
                     static_cast<double>(confidence.coarse_bucket_us) / 1e6);
}

void gpu_block(std::string& out, const RunGpu& gpu) {
  const GpuUsage& u = gpu.usage;
  line(out, fmt::format("GPU {}", u.device),
       fmt::format("{}{}", gpu.name.value_or(std::string(view::kNotAvailable)),
                   gpu.uuid ? fmt::format(" ({})", *gpu.uuid) : ""));
  // A device without per-process utilisation: the whole GPU's use, the command's only while it
  // was the GPU's only user.
  const bool device_level = u.level == AttributionLevel::device;
  line(out, device_level ? "  GPU (whole device)" : "  SM", engine_text(u[Engine::sm]));
  line(out, "  memory controller", engine_text(u[Engine::memory]));
  if (nonzero(u[Engine::encoder])) line(out, "  encoder", engine_text(u[Engine::encoder]));
  if (nonzero(u[Engine::decoder])) line(out, "  decoder", engine_text(u[Engine::decoder]));
  line(out, "  GPU memory",
       u.memory.peak_bytes
           ? fmt::format("{} peak", view::format_bytes(static_cast<double>(*u.memory.peak_bytes)))
           : std::string(view::kNotAvailable));
  line(out, "  energy",
       fmt::format("{} (the device: {} over the run)", joules(u.energy.processes_joules),
                   joules(u.energy.device_joules)));
  if (u.confidence.low()) line(out, "  confidence", confidence_text(u.confidence));
}

void gpu_lines(std::string& out, const RunResult& r) {
  if (r.gpu_error) {
    line(out, "GPU", *r.gpu_error);
    return;
  }
  if (r.gpus.empty()) {
    line(out, "GPU",
         fmt::format("none used ({} GPU{} watched)", r.gpus_seen, r.gpus_seen == 1 ? "" : "s"));
  }
  for (const RunGpu& gpu : r.gpus) gpu_block(out, gpu);
}

}  // namespace

std::string run_summary(const RunResult& r) {
  std::string out = fmt::format("gpumeter run: {}\n", fmt::join(r.command, " "));
  line(out, "exit status", exit_text(r.exit));
  line(out, "wall time", fmt::format("{:.2f} s", r.wall_seconds));
  line(out, "CPU time", cpu_text(r));
  memory_lines(out, r);
  line(out, "processes", fmt::format("{}", r.processes));
  if (r.cgroup) {
    line(out, "cgroup",
         fmt::format("v{} {}", r.cgroup->version == host::CgroupVersion::v2 ? 2 : 1,
                     r.cgroup->path.string()));
  }
  if (r.limits.any()) line(out, "limits", limits_text(r.limits));
  gpu_lines(out, r);
  return out;
}

}  // namespace gpumeter::run
