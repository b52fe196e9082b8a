// SPDX-License-Identifier: MIT
#include "nvml/gpm.h"

#include <memory>

namespace gpumeter::nvml {
namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;

// The NVML metric behind each gpm_* row, in kGpmMetrics order, and its scale to the row's unit.
struct GpmSource {
  abi::GpmMetricId id;
  double scale;
};
constexpr std::array<GpmSource, kGpmMetrics.size()> kSources{{
    {abi::kGpmSmUtil, 1},
    {abi::kGpmSmOccupancy, 1},
    {abi::kGpmAnyTensorUtil, 1},
    {abi::kGpmDramBwUtil, 1},
    {abi::kGpmPcieTxPerSec, kBytesPerMib},
    {abi::kGpmPcieRxPerSec, kBytesPerMib},
    {abi::kGpmNvlinkTotalTxPerSec, kBytesPerMib},
    {abi::kGpmNvlinkTotalRxPerSec, kBytesPerMib},
}};

GpmReader::Values all_absent(Unavailable reason) {
  GpmReader::Values values;
  values.fill(std::unexpected(reason));
  return values;
}

bool supported(DeviceQuery& gpu) {
  abi::GpmSupport support{abi::kGpmSupportVersion, 0};
  return gpu.call(gpu.api().gpm_query_support, &support).has_value() &&
         support.is_supported_device != 0;
}

}  // namespace

void GpmReader::release() noexcept {
  for (auto& [target, track] : tracks_) {
    if (track.previous != nullptr && api_.gpm_sample_free) api_.gpm_sample_free.fn(track.previous);
  }
  tracks_.clear();
}

Maybe<void> GpmReader::sample_into(Target target, DeviceQuery& gpu, abi::GpmSample sample) {
  if (target.second < 0) return gpu.call(api_.gpm_sample_get, sample);
  return gpu.call(api_.gpm_mig_sample_get, static_cast<unsigned>(target.second), sample);
}

GpmReader::Values GpmReader::between(abi::GpmSample older, abi::GpmSample newer) const {
  auto get = std::make_unique<abi::GpmMetricsGet>();
  get->version = abi::kGpmMetricsGetVersion;
  get->num_metrics = static_cast<std::uint32_t>(kSources.size());
  get->sample1 = older;
  get->sample2 = newer;
  for (std::size_t i = 0; i < kSources.size(); ++i) get->metrics[i].metric_id = kSources[i].id;
  const abi::Return code = api_.gpm_metrics_get.fn(get.get());
  if (code != abi::kSuccess) return all_absent(to_unavailable(code));
  Values values;
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    const abi::GpmMetric& metric = get->metrics[i];
    if (metric.nvml_return == abi::kSuccess)
      values[i] = metric.value * kSources[i].scale;
    else
      values[i] = std::unexpected(to_unavailable(metric.nvml_return));
  }
  return values;
}

GpmReader::Values GpmReader::read_target(Target target, DeviceQuery& gpu) {
  if (!api_.gpm_sample_alloc || !api_.gpm_sample_free || !api_.gpm_metrics_get)
    return all_absent(Unavailable::not_supported);
  Track& track = tracks_[target];
  const auto now = std::chrono::steady_clock::now();
  // Too soon after the kept sample: compare nothing, keep the older sample.
  if (track.previous != nullptr && now - track.taken < kGpmMinimumWindow)
    return track.last.value_or(all_absent(Unavailable::no_data));
  abi::GpmSample sample = nullptr;
  if (api_.gpm_sample_alloc.fn(&sample) != abi::kSuccess) return all_absent(Unavailable::error);
  if (auto taken = sample_into(target, gpu, sample); !taken) {
    api_.gpm_sample_free.fn(sample);
    return all_absent(taken.error());
  }
  std::optional<Values> values;
  if (track.previous != nullptr) {
    values = between(track.previous, sample);
    api_.gpm_sample_free.fn(track.previous);
  }
  track.previous = sample;
  track.taken = now;
  if (values) track.last = values;
  return track.last.value_or(all_absent(Unavailable::no_data));
}

void GpmReader::read(unsigned index, DeviceQuery& gpu, DeviceState& state,
                     std::vector<MigDevice>* mig) {
  const Values values =
      supported(gpu) ? read_target({index, -1}, gpu) : all_absent(Unavailable::not_supported);
  for (std::size_t i = 0; i < kGpmMetrics.size(); ++i) state[kGpmMetrics[i]] = values[i];
  const bool unsupported = !values[0] && values[0].error() == Unavailable::not_supported;
  if (mig == nullptr || unsupported) return;
  std::map<std::uint32_t, Values> by_instance;  // MIG devices of one GPU instance share it
  for (MigDevice& device : *mig) {
    auto [at, added] = by_instance.try_emplace(device.gpu_instance_id);
    if (added) at->second = read_target({index, device.gpu_instance_id}, gpu);
    device.gpm = at->second;
  }
}

}  // namespace gpumeter::nvml
