// SPDX-License-Identifier: MIT
// One collection: read the GPU source, describe every GPU process through the process
// source, stamp the time. The CLI's one-shot commands and (later) the sampler share it.
#pragma once

#include <expected>

#include "core/error.h"
#include "core/model.h"
#include "core/source.h"

namespace gpumeter {

struct CollectOptions {
  std::string hostname;
  std::string source_label;
  // Also drain each GPU's per-process utilisation buffer and give every listed process its
  // recent engine use (GpuProcess::recent_use): one more driver call per GPU (`list`, `top`).
  bool recent_use = false;
};

std::expected<Snapshot, Error> collect(GpuSource& gpus, ProcessSource& host,
                                       const CollectOptions& options, TimeUs now_us);

// The GPUs' identity and memory only (GpuSource::read_inventory), no process described.
std::expected<Snapshot, Error> collect_inventory(GpuSource& gpus, const CollectOptions& options,
                                                 TimeUs now_us);

}  // namespace gpumeter
