// SPDX-License-Identifier: MIT
#include "cli/list_vgpu.h"

#include <fmt/format.h>

#include <cmath>

#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

std::string instance_text(const VgpuInstance& instance) {
  const std::string vm = instance.vm_id ? *instance.vm_id : fmt::format("instance {}", instance.id);
  const std::string type =
      instance.type_name ? *instance.type_name : std::string(view::kNotAvailable);
  const std::string sm = instance.utilization
                             ? fmt::format("{}%", std::llround(instance.utilization->sm))
                             : std::string(view::kNotAvailable);
  const std::string fb = instance.fb_used_bytes
                             ? view::format_bytes(static_cast<double>(*instance.fb_used_bytes))
                             : std::string(view::kNotAvailable);
  return fmt::format("{} ({}, SM {}, FB {})", vm, type, sm, fb);
}

std::string host_line(const Device& device) {
  const auto& instances = device.vgpu->instances;
  std::string line = fmt::format("GPU {}: vGPU host, {} VM{}", device.identity.index,
                                 instances.size(), instances.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < instances.size(); ++i)
    line += (i == 0 ? ": " : ", ") + instance_text(instances[i]);
  return line + "; gpumeter vgpu shows more\n";
}

}  // namespace

std::string vgpu_host_lines(const Snapshot& snapshot) {
  std::string out;
  for (const Device& device : snapshot.gpus.devices) {
    if (device.vgpu) out += host_line(device);
  }
  return out;
}

}  // namespace gpumeter::cli
