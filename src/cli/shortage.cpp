// SPDX-License-Identifier: MIT
#include "cli/shortage.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

std::string why(const Device& device, Exclusion reason) {
  using enum DeviceMetric;
  const DeviceState& state = device.state;
  switch (reason) {
    case Exclusion::lost: return "lost";
    case Exclusion::compute_prohibited: return "compute mode prohibited";
    case Exclusion::memory_unknown: return "memory use unknown";
    case Exclusion::mig_mode: return "in MIG mode (see --mig)";
    case Exclusion::vgpu_host: return "hosting vGPUs (see gpumeter vgpu)";
    case Exclusion::memory_busy:
    case Exclusion::utilization_busy:
      return fmt::format("{} util, {}", view::format_whole(state[utilization_gpu], "%"),
                         view::format_memory(state[memory_used], state[memory_total], "/"));
  }
  return "excluded";
}

std::string excluded_list(const GpuReading& reading, const Selection& selection) {
  std::vector<std::string> parts;
  parts.reserve(selection.excluded.size());
  for (const ExcludedGpu& excluded : selection.excluded) {
    parts.push_back(describe_exclusion(reading.devices[excluded.device], excluded.reason));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string describe_exclusion(const Device& device, Exclusion reason) {
  return fmt::format("GPU {}: {}", device.identity.index, why(device, reason));
}

std::string describe_shortage(const GpuReading& reading, const Selection& selection,
                              std::size_t wanted) {
  const std::size_t total = reading.devices.size();
  if (total == 0) return "no GPUs found";
  const std::size_t free = selection.eligible.size();
  const std::string head = free == 0 ? std::string("no free GPU")
                                     : fmt::format("only {} of the {} GPUs asked for {} free", free,
                                                   wanted, free == 1 ? "is" : "are");
  return fmt::format("{}: {} of {} in use ({})", head, selection.excluded.size(), total,
                     excluded_list(reading, selection));
}

std::string describe_reserved(std::size_t free, std::size_t reserved_here, std::size_t wanted) {
  const std::size_t elsewhere = free - reserved_here;
  const std::string head = reserved_here == 0
                               ? std::string("no free GPU")
                               : fmt::format("only {} of the {} GPUs asked for could be reserved",
                                             reserved_here, wanted);
  // A reservation outlives the call that made it (the job it was for has not taken its memory
  // yet), also for later calls from the same shell: say how to go on.
  return fmt::format(
      "{}: {} of {} free GPUs reserved by earlier `gpumeter available -l` calls, until the job "
      "that asked for each starts using it (30 s at most) or its shell exits; --no-reserve "
      "prints them anyway",
      head, elsewhere, free);
}

}  // namespace gpumeter::cli
