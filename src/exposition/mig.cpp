// SPDX-License-Identifier: MIT
// The per-MIG-device families: memory and process count of every MIG device, labelled with
// its parent GPU, instance ids, profile and MIG UUID. GPUs without MIG write nothing.
#include <string>

#include "exposition/parts.h"

namespace gpumeter::exposition {
namespace {

struct MigSample {
  Labels labels;
  const MigDevice* mig;
};

std::vector<MigSample> mig_samples(const Snapshot& snapshot) {
  std::vector<MigSample> out;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.mig || !device.mig->enabled) continue;
    for (const MigDevice& mig : device.mig->devices) {
      Labels labels;
      labels.add("host", snapshot.hostname)
          .add("gpu", std::to_string(device.identity.index))
          .add("gpu_instance", std::to_string(mig.gpu_instance_id))
          .add("compute_instance", std::to_string(mig.compute_instance_id))
          .add("profile", mig.profile.value_or(""))
          .add("uuid", mig.uuid.value_or(""));
      out.push_back({std::move(labels), &mig});
    }
  }
  return out;
}

template <class Value>
void append_family(fmt::memory_buffer& out, const std::vector<MigSample>& samples,
                   std::string_view name, std::string_view help, Value value) {
  Family family(out, name, MetricType::gauge, help);
  for (const MigSample& s : samples) {
    if (const std::optional<double> v = value(*s.mig)) family.sample(s.labels, *v);
  }
}

std::optional<double> known(const Maybe<double>& value) {
  return value ? std::optional<double>(*value) : std::nullopt;
}

}  // namespace

void append_mig_metrics(fmt::memory_buffer& out, const Snapshot& snapshot) {
  const std::vector<MigSample> samples = mig_samples(snapshot);
  append_family(out, samples, "gpumeter_mig_memory_used_bytes",
                "Memory allocated by the processes of a MIG device",
                [](const MigDevice& m) { return known(m.memory_used_bytes); });
  append_family(out, samples, "gpumeter_mig_memory_total_bytes", "Memory of a MIG device",
                [](const MigDevice& m) { return known(m.memory_total_bytes); });
  append_family(out, samples, "gpumeter_mig_gpm_sm_activity_ratio",
                "GPM (Hopper and newer): fraction of the GPU instance's SMs busy over the last "
                "GPM window",
                [](const MigDevice& m) -> std::optional<double> {
                  const Maybe<double>& v = m.gpm[0];  // kGpmMetrics[0]: gpm_sm_activity
                  if (!v) return std::nullopt;
                  return *v / 100.0;
                });
  append_family(out, samples, "gpumeter_mig_processes", "Processes running on a MIG device",
                [](const MigDevice& m) -> std::optional<double> {
                  if (!m.processes) return std::nullopt;
                  return static_cast<double>(m.processes->size());
                });
}

}  // namespace gpumeter::exposition
