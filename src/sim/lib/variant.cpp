// SPDX-License-Identifier: MIT
#include "sim/lib/variant.h"

namespace gpumeter::sim::lib {
namespace {

#if !defined(GPUMETER_SIM_VARIANT)
#error "GPUMETER_SIM_VARIANT must be set by the build (1 default, 2 r535-cc, 3 legacy)"
#elif GPUMETER_SIM_VARIANT == 1
constexpr Variant kVariant{"default", nullptr, nullptr, 0, false};
#elif GPUMETER_SIM_VARIANT == 2
constexpr Variant kVariant{"r535-cc", "535.54.03", "12.535.54.03", 12020, true};
#elif GPUMETER_SIM_VARIANT == 3
constexpr Variant kVariant{"legacy", "470.82.01", "11.470.82.01", 11040, false};
#else
#error "unknown GPUMETER_SIM_VARIANT"
#endif

}  // namespace

const Variant& variant() noexcept {
  return kVariant;
}

}  // namespace gpumeter::sim::lib
