// SPDX-License-Identifier: MIT
// vGPU use in the history (docs/vgpu.md, docs/store.md): how long each VM's vGPU instance was
// active, how busy its SM was and its peak framebuffer, per minute, and the per-VM report that
// `gpumeter report --by vm` prints.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model.h"
#include "store/store.h"

namespace gpumeter::store {

// One VM's vGPU instance on one GPU during [begin_us, end_us). Figures are increments for the
// interval; the recorder's intervals are one sampler round long, so each lies in one minute
// and is filed under the minute it begins in.
struct VgpuUseRecord {
  std::string gpu_uuid;
  std::uint32_t gpu_index = 0;
  std::string vm_id;
  std::optional<std::string> vgpu_uuid;
  std::optional<std::string> vgpu_type;
  TimeUs begin_us = 0;
  TimeUs end_us = 0;
  double sm_busy_seconds = 0;  // Σ SM percent / 100 × seconds
  std::optional<std::uint64_t> fb_used_bytes;
};

// Checks: non-empty uuid and vm id, an interval that does not end before it begins, finite
// non-negative figures, at most the interval busy. Errors: invalid_input naming the field.
std::expected<void, Error> validate(const VgpuUseRecord& record);

// The records of one GPU's instances for the round [begin_us, end_us), from the snapshot that
// ends it (the instance's newest utilisation stands for the round). None for a GPU without a
// uuid or not a vGPU host, nor for an instance without a VM id.
std::vector<VgpuUseRecord> vgpu_use_records(const Device& device, TimeUs begin_us, TimeUs end_us);

struct VmUsageRow {
  std::string host;
  std::string vm_id;
  std::string vgpu_type;  // the newest type seen; empty when never read
  std::string gpu_uuid;
  std::uint32_t gpu_index = 0;
  double vgpu_hours = 0;     // hours the instance was active
  double sm_busy_hours = 0;  // Σ SM percent / 100 × hours
  std::optional<double> sm_percent_while_active;
  std::optional<std::uint64_t> peak_fb_used_bytes;
};

// Per VM and GPU, the use in [since, until), ordered by host, VM, GPU: whole hours already
// rolled up come from vgpu_hours, the rest from the minutes that begin in the window; an hour at
// an edge of the window whose minutes retention deleted counts by the part of it in the window.
// Errors: invalid_input for an empty window; io from SQLite.
std::expected<std::vector<VmUsageRow>, Error> vm_usage(Store& store, TimeUs since_us,
                                                       TimeUs until_us);

}  // namespace gpumeter::store
