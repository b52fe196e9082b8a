// SPDX-License-Identifier: MIT
// nvmlDeviceGetFieldValues: a few field ids, each with its own status; the call itself
// succeeds when the arguments are valid.
#include <cmath>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

constexpr std::uint32_t kFieldEccCurrent = 1;
constexpr std::uint32_t kFieldTotalEnergy = 83;
constexpr std::uint32_t kFieldPowerAverage = 185;
constexpr std::uint32_t kFieldPowerInstant = 186;

abi::Return unsigned_field(abi::FieldValue& field, std::uint64_t value, bool supported) {
  if (!supported) return abi::kErrorNotSupported;
  field.value_type = abi::kValueTypeUnsignedInt;
  field.value.ui = static_cast<std::uint32_t>(value);
  return abi::kSuccess;
}

abi::Return fill_field(const DeviceCall& call, abi::FieldValue& field) {
  const DeviceSpec& spec = call.spec;
  switch (field.field_id) {
    case kFieldEccCurrent: return unsigned_field(field, 1, spec.supports(Feature::ecc));
    case kFieldPowerAverage:
    case kFieldPowerInstant: {
      const double mw = call.timeline().reading(call.index, call.now).power_mw;
      return unsigned_field(field, static_cast<std::uint64_t>(std::llround(mw)),
                            spec.supports(Feature::power));
    }
    case kFieldTotalEnergy:
      if (!spec.supports(Feature::energy)) return abi::kErrorNotSupported;
      field.value_type = abi::kValueTypeUnsignedLongLong;
      field.value.ull = call.library.energy_mj(call.index, call.now);
      return abi::kSuccess;
    default: return abi::kErrorNotSupported;
  }
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetFieldValues(abi::Device device, int count, abi::FieldValue* values) {
  return device_call("nvmlDeviceGetFieldValues", device, std::nullopt, [&](const DeviceCall& call) {
    if (count <= 0 || values == nullptr) return abi::kErrorInvalidArgument;
    for (int i = 0; i < count; ++i) {
      abi::FieldValue& field = values[i];
      field.timestamp = call.library.epoch_us() + call.now;
      field.latency_usec = 0;
      field.nvml_return = fill_field(call, field);
    }
    return abi::kSuccess;
  });
}
