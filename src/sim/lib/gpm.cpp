// SPDX-License-Identifier: MIT
// GPM (Hopper and newer): samples stamped with the simulated clock, and metrics computed from
// the scenario's utilisation over exactly the window between two samples, so that a test can
// know every figure (docs/mig.md lists the formulas). Older GPUs answer NOT_SUPPORTED.
#include <algorithm>
#include <set>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

// What a sample holds: where and when it was taken.
struct gpumeter::nvml::abi::GpmSampleOpaque {
  bool taken = false;
  std::size_t device = 0;
  std::optional<std::uint32_t> gpu_instance;  // a sample of one GPU instance
  gpumeter::sim::SimUs time = 0;
};

namespace gpumeter::sim::lib {
namespace {

// Samples this library allocated and has not freed (under the library's lock).
std::set<abi::GpmSample>& live_samples() {
  static std::set<abi::GpmSample> samples;
  return samples;
}

bool has_gpm(const DeviceSpec& spec) {
  return spec.architecture >= abi::kArchHopper && spec.architecture != abi::kArchUnknown;
}

bool gpu_instance_exists(const DeviceSpec& spec, std::uint32_t gpu_instance) {
  if (!spec.mig) return false;
  return std::ranges::any_of(spec.mig->instances, [&](const MigInstanceSpec& m) {
    return m.gpu_instance == gpu_instance;
  });
}

abi::Return take(const DeviceCall& call, abi::GpmSample sample,
                 std::optional<std::uint32_t> gpu_instance) {
  if (!live_samples().contains(sample)) return abi::kErrorInvalidArgument;
  if (!has_gpm(call.spec)) return abi::kErrorNotSupported;
  *sample = abi::GpmSampleOpaque{true, call.index, gpu_instance, call.now};
  return abi::kSuccess;
}

// Mean utilisation over [a, b]: of the whole GPU, or the sum over one GPU instance's
// processes (capped at 100 per engine).
Use mean_use(const Timeline& timeline, std::size_t device, std::optional<std::uint32_t> gi,
             double a, double b) {
  if (!gi) return timeline.device_mean(device, a, b);
  Use sum;
  for (const ProcessSpec& p : timeline.scenario().processes) {
    if (p.device != device || !p.mig || p.mig->gpu_instance != *gi || !timeline.pid_of(p)) continue;
    const Use use = timeline.process_mean(p, a, b);
    sum.sm += use.sm;
    sum.mem += use.mem;
  }
  sum.sm = std::min(sum.sm, 100.0);
  sum.mem = std::min(sum.mem, 100.0);
  return sum;
}

// One metric's value, or nullopt for ids the simulator does not produce.
std::optional<double> metric_value(std::uint32_t id, const DeviceSpec& spec, const Use& use) {
  const double load = use.sm / 100.0;
  constexpr double kKibPerMib = 1024.0;
  switch (id) {
    case abi::kGpmGraphicsUtil:
    case abi::kGpmSmUtil: return use.sm;
    case abi::kGpmSmOccupancy: return use.sm * spec.gpm.sm_occupancy_ratio;
    case abi::kGpmAnyTensorUtil: return use.sm * spec.gpm.tensor_ratio;
    case abi::kGpmDramBwUtil: return use.mem;
    // The scenario's PCIe rates are KiB/s at full load; GPM reports MiB/s.
    case abi::kGpmPcieTxPerSec: return spec.pci.tx_kbps_at_full_load * load / kKibPerMib;
    case abi::kGpmPcieRxPerSec: return spec.pci.rx_kbps_at_full_load * load / kKibPerMib;
    case abi::kGpmNvlinkTotalTxPerSec: return spec.gpm.nvlink_tx_mib_per_s * load;
    case abi::kGpmNvlinkTotalRxPerSec: return spec.gpm.nvlink_rx_mib_per_s * load;
    default: return std::nullopt;
  }
}

abi::Return metrics(Library& library, abi::GpmMetricsGet& get) {
  if (get.version != abi::kGpmMetricsGetVersion) return abi::kErrorArgumentVersionMismatch;
  const abi::GpmSample first = get.sample1;
  const abi::GpmSample second = get.sample2;
  if (!live_samples().contains(first) || !live_samples().contains(second))
    return abi::kErrorInvalidArgument;
  if (!first->taken || !second->taken || first->device != second->device ||
      first->gpu_instance != second->gpu_instance || second->time <= first->time ||
      get.num_metrics > abi::kGpmMetricMax) {
    return abi::kErrorInvalidArgument;
  }
  const DeviceSpec& spec = library.scenario().devices[first->device];
  const Use use = mean_use(library.timeline(), first->device, first->gpu_instance,
                           seconds(first->time), seconds(second->time));
  for (std::uint32_t i = 0; i < get.num_metrics; ++i) {
    abi::GpmMetric& metric = get.metrics[i];
    const std::optional<double> value = metric_value(metric.metric_id, spec, use);
    metric.nvml_return = value ? abi::kSuccess : abi::kErrorNotSupported;
    metric.value = value.value_or(0);
    metric.short_name = metric.long_name = metric.unit = nullptr;
  }
  return abi::kSuccess;
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlGpmQueryDeviceSupport(abi::Device device, abi::GpmSupport* support) {
  return mig_aware_call("nvmlGpmQueryDeviceSupport", device, std::nullopt,
                        [&](const DeviceCall& call) {
                          if (support == nullptr) return abi::kErrorInvalidArgument;
                          if (support->version != abi::kGpmSupportVersion)
                            return abi::kErrorArgumentVersionMismatch;
                          support->is_supported_device = has_gpm(call.spec) ? 1 : 0;
                          return abi::kSuccess;
                        });
}

abi::Return nvmlGpmSampleAlloc(abi::GpmSample* sample) {
  return system_call("nvmlGpmSampleAlloc", [&](Library&) {
    if (sample == nullptr) return abi::kErrorInvalidArgument;
    *sample = new abi::GpmSampleOpaque{};  // NOLINT(cppcoreguidelines-owning-memory): C ABI
    live_samples().insert(*sample);
    return abi::kSuccess;
  });
}

abi::Return nvmlGpmSampleFree(abi::GpmSample sample) {
  return system_call("nvmlGpmSampleFree", [&](Library&) {
    if (live_samples().erase(sample) == 0) return abi::kErrorInvalidArgument;
    delete sample;  // NOLINT(cppcoreguidelines-owning-memory): allocated by nvmlGpmSampleAlloc
    return abi::kSuccess;
  });
}

// On a MIG handle, the sample is of that MIG device's GPU instance.
abi::Return nvmlGpmSampleGet(abi::Device device, abi::GpmSample sample) {
  return mig_aware_call("nvmlGpmSampleGet", device, std::nullopt, [&](const DeviceCall& call) {
    const auto gi = call.mig != nullptr ? std::optional(call.mig->gpu_instance) : std::nullopt;
    return take(call, sample, gi);
  });
}

abi::Return nvmlGpmMigSampleGet(abi::Device device, unsigned gpu_instance, abi::GpmSample sample) {
  return device_call("nvmlGpmMigSampleGet", device, std::nullopt, [&](const DeviceCall& call) {
    if (!has_gpm(call.spec)) return abi::kErrorNotSupported;
    if (!gpu_instance_exists(call.spec, gpu_instance)) return abi::kErrorNotFound;
    return take(call, sample, gpu_instance);
  });
}

abi::Return nvmlGpmMetricsGet(abi::GpmMetricsGet* get) {
  return system_call("nvmlGpmMetricsGet", [&](Library& library) {
    if (get == nullptr) return abi::kErrorInvalidArgument;
    return metrics(library, *get);
  });
}
