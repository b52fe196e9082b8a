// SPDX-License-Identifier: MIT
// Which GPUs are free: the pure decision behind `gpumeter available`. Given one reading and
// the criteria, returns the eligible GPUs in the order asked for, and for every other GPU the
// reason it was left out (so the caller can say why nothing was free). No I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/model.h"

namespace gpumeter {

enum class GpuOrder : std::uint8_t {
  index,        // NVML index order (PCI bus order)
  free_memory,  // most free memory first
  power,        // lowest power draw now first (an idle GPU draws little)
  // The strongest first: the highest power limit (a bigger GPU), then the most free memory;
  // the "priority" of nvgpu's plans.
  priority,
};

struct SelectionCriteria {
  // Relative thresholds, in percent; a GPU at or under both is free. Relative memory use, so
  // that the few MiB a display server holds do not make a GPU busy.
  double max_memory_percent = 20.0;
  double max_utilization_percent = 20.0;
  GpuOrder order = GpuOrder::index;
};

// Why a GPU is not eligible; when several apply, the first in this list is reported.
enum class Exclusion : std::uint8_t {
  lost,                // fell off the bus
  compute_prohibited,  // compute mode "prohibited": no CUDA context can be created
  memory_unknown,      // used or total memory could not be read
  memory_busy,         // memory use above max_memory_percent
  utilization_busy,    // GPU utilization above max_utilization_percent
  mig_mode,            // in MIG mode: CUDA runs on its MIG devices, not on the whole GPU
  vgpu_host,           // hosts vGPUs: its VMs use it, and the host cannot run CUDA on it
};

struct ExcludedGpu {
  std::size_t device = 0;  // position in GpuReading::devices
  Exclusion reason = Exclusion::lost;
};

struct Selection {
  std::vector<std::size_t> eligible;  // positions in GpuReading::devices, in the order asked for
  std::vector<ExcludedGpu> excluded;  // in reading order
};

// Splits `reading`'s devices into eligible and excluded ones. A GPU whose utilization cannot
// be read (MIG-enabled GPUs report none) is judged by its memory alone; a GPU whose memory
// cannot be read is excluded. Ties in the order are broken by position.
Selection select_gpus(const GpuReading& reading, const SelectionCriteria& criteria);

// A MIG device, by its GPU's position in GpuReading::devices and its own in MigState::devices.
struct MigChoice {
  std::size_t device = 0;
  std::size_t instance = 0;
};

struct MigSelection {
  std::vector<MigChoice> eligible;  // in reading order (GPU, then the driver's slot order)
  std::size_t busy = 0;             // MIG devices left out
};

// The free MIG devices of every GPU in MIG mode. The driver reports no utilisation under MIG,
// so a MIG device is free when no process runs on it and it uses at most
// max_memory_percent of its memory; a MIG device whose processes or memory cannot be read is
// not free.
MigSelection select_mig_devices(const GpuReading& reading, const SelectionCriteria& criteria);

// Memory in use as a percent of the total, when both are known and the total is non-zero.
std::optional<double> memory_used_percent(const DeviceState& state);

}  // namespace gpumeter
