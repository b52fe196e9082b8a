// SPDX-License-Identifier: MIT
// The driver a build of the library emulates. One source, compiled once per variant with
// a different GPUMETER_SIM_VARIANT; which symbols a variant exports is decided by its
// linker version script (src/sim/CMakeLists.txt), not here.
#pragma once

namespace gpumeter::sim::lib {

struct Variant {
  const char* name;
  // When set, the driver, NVML and CUDA versions the variant reports whatever the
  // scenario says (an old driver cannot claim to be new).
  const char* driver_version;
  const char* nvml_version;
  int cuda_driver_version;
  // Drivers 535.43.02-535.86.05 write 32-byte elements from every ..._v3 process call.
  bool v3_process_stride_32;
};

const Variant& variant() noexcept;

}  // namespace gpumeter::sim::lib
