// SPDX-License-Identifier: MIT
// Every function of NVML's public header that the simulator does not model
// (sim/unmodelled_symbols.h). A driver never answers "function not found" for a function it
// has: it answers as for a feature this GPU lacks. So each checks what every call checks
// (initialised, a valid handle, the GPU not lost, a scripted fault) and then answers
// NOT_SUPPORTED (docs/scenarios.md, "Functions").
#include <optional>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"
#include "sim/unmodelled_symbols.h"

namespace gpumeter::sim::lib {
namespace {

abi::Return unmodelled_device_call(const char* function, abi::Device device) {
  return mig_aware_call(function, device, std::nullopt,
                        [](const DeviceCall&) { return abi::kErrorNotSupported; });
}

abi::Return unmodelled_call(const char* function) {
  return system_call(function, [](Library&) { return abi::kErrorNotSupported; });
}

}  // namespace
}  // namespace gpumeter::sim::lib

// The parameters other than the device are unnamed: nothing reads them. (Names in full:
// this file may share a unity build with files that have `abi` in scope otherwise.)
#define GPUMETER_SIM_DEVICE_STUB(symbol, parameters)                             \
  extern "C" GPUMETER_SIM_EXPORT gpumeter::nvml::abi::Return symbol parameters { \
    return gpumeter::sim::lib::unmodelled_device_call(#symbol, device);          \
  }
#define GPUMETER_SIM_OTHER_STUB(symbol, parameters)                              \
  extern "C" GPUMETER_SIM_EXPORT gpumeter::nvml::abi::Return symbol parameters { \
    return gpumeter::sim::lib::unmodelled_call(#symbol);                         \
  }
GPUMETER_SIM_UNMODELLED_DEVICE_SYMBOLS(GPUMETER_SIM_DEVICE_STUB)
GPUMETER_SIM_UNMODELLED_OTHER_SYMBOLS(GPUMETER_SIM_OTHER_STUB)
#undef GPUMETER_SIM_DEVICE_STUB
#undef GPUMETER_SIM_OTHER_STUB
