// SPDX-License-Identifier: MIT
// The per-vGPU-instance families (docs/metrics.md, "vGPU"): utilisation per engine,
// framebuffer in use, licence state and expiry, labelled host, gpu, vgpu_uuid, vm_id and
// vgpu_type. A GPU that is not a vGPU host adds nothing.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "exposition/parts.h"

namespace gpumeter::exposition {
namespace {

struct Instance {
  Labels labels;
  const VgpuInstance* instance;
};

std::vector<Instance> instances_of(const Snapshot& snapshot) {
  std::vector<Instance> out;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.vgpu) continue;
    for (const VgpuInstance& v : device.vgpu->instances) {
      Labels labels;
      labels.add("host", snapshot.hostname)
          .add("gpu", std::to_string(device.identity.index))
          .add("vgpu_uuid", v.uuid.value_or(""))
          .add("vm_id", v.vm_id.value_or(""))
          .add("vgpu_type", v.type_name.value_or(""));
      out.push_back(Instance{std::move(labels), &v});
    }
  }
  return out;
}

using Engine = Maybe<double> (*)(const VgpuUtilization&);

struct EngineFamily {
  std::string_view name;
  std::string_view help;
  Engine value;
};

const std::array<EngineFamily, 6> kEngines{{
    {"gpumeter_vgpu_sm_utilization_ratio",
     "Fraction of the driver's last sample period the vGPU instance ran kernels",
     [](const VgpuUtilization& u) -> Maybe<double> { return u.sm; }},
    {"gpumeter_vgpu_memory_utilization_ratio",
     "Frame-buffer (memory controller) activity of the vGPU instance",
     [](const VgpuUtilization& u) -> Maybe<double> { return u.memory; }},
    {"gpumeter_vgpu_encoder_utilization_ratio", "Video encoder use of the vGPU instance",
     [](const VgpuUtilization& u) -> Maybe<double> { return u.encoder; }},
    {"gpumeter_vgpu_decoder_utilization_ratio", "Video decoder use of the vGPU instance",
     [](const VgpuUtilization& u) -> Maybe<double> { return u.decoder; }},
    {"gpumeter_vgpu_jpeg_utilization_ratio",
     "JPEG decoder use of the vGPU instance (drivers 550 and later)",
     [](const VgpuUtilization& u) { return u.jpeg; }},
    {"gpumeter_vgpu_ofa_utilization_ratio",
     "Optical flow accelerator use of the vGPU instance (drivers 550 and later)",
     [](const VgpuUtilization& u) { return u.ofa; }},
}};

void append_utilization(fmt::memory_buffer& out, const std::vector<Instance>& instances) {
  for (const EngineFamily& engine : kEngines) {
    Family family(out, engine.name, MetricType::gauge, engine.help);
    for (const Instance& i : instances) {
      if (!i.instance->utilization) continue;
      const Maybe<double> value = engine.value(*i.instance->utilization);
      if (value) family.sample(i.labels, *value / 100.0);
    }
  }
}

void append_framebuffer(fmt::memory_buffer& out, const std::vector<Instance>& instances) {
  Family family(out, "gpumeter_vgpu_framebuffer_used_bytes", MetricType::gauge,
                "Frame buffer the VM's vGPU instance has in use");
  for (const Instance& i : instances) {
    if (i.instance->fb_used_bytes)
      family.sample(i.labels, static_cast<double>(*i.instance->fb_used_bytes));
  }
}

void append_license(fmt::memory_buffer& out, const std::vector<Instance>& instances) {
  Family licensed(out, "gpumeter_vgpu_licensed", MetricType::gauge,
                  "1 when the VM's vGPU licence is held, else 0");
  for (const Instance& i : instances) {
    if (i.instance->license) licensed.sample(i.labels, i.instance->license->licensed ? 1 : 0);
  }
  Family state(out, "gpumeter_vgpu_license_state_info", MetricType::gauge,
               "Always 1: the licence state in the state label (drivers 510 and later)");
  for (const Instance& i : instances) {
    if (i.instance->license && i.instance->license->state)
      state.sample(i.labels.with("state", to_string(*i.instance->license->state)), 1);
  }
  Family expiry(out, "gpumeter_vgpu_license_expiry_timestamp_seconds", MetricType::gauge,
                "When the VM's vGPU licence expires, seconds since the Unix epoch");
  for (const Instance& i : instances) {
    if (!i.instance->license) continue;
    if (const std::optional<std::int64_t>& us = i.instance->license->expiry_us; us.has_value())
      expiry.sample(i.labels, static_cast<double>(*us) / 1e6);
  }
}

}  // namespace

void append_vgpu_metrics(fmt::memory_buffer& out, const Snapshot& snapshot) {
  const std::vector<Instance> instances = instances_of(snapshot);
  if (instances.empty()) return;
  append_utilization(out, instances);
  append_framebuffer(out, instances);
  append_license(out, instances);
}

}  // namespace gpumeter::exposition
