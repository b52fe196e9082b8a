// SPDX-License-Identifier: MIT
// The NVML backend: turns NVML results into the model's plain types. The only code that
// sees NVML return codes; nothing it returns carries a vendor type.
#pragma once

#include <expected>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/source.h"

namespace gpumeter::nvml {

struct NvmlOptions {
  // Path or soname passed to dlopen. Empty: $GPUMETER_NVML_LIBRARY, else "libnvidia-ml.so.1".
  std::string library_path;
  // Keep each GPU's exited accounting records between reads instead of asking the driver for
  // every record every read (nvml/accounting_cache.h). The records are the same either way;
  // false exists to measure what keeping them saves (bench/sampler_bench.cpp).
  bool keep_exited_accounting = true;
};

// Loads the library and initialises NVML.
// Errors: ErrorCode::library_not_found (dlopen failed; the message names the library and
// what to check), ErrorCode::driver_failed (nvmlInit failed; the message says why).
std::expected<std::unique_ptr<GpuSource>, Error> open_nvml_source(const NvmlOptions& options);

}  // namespace gpumeter::nvml
