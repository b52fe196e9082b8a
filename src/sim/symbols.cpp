// SPDX-License-Identifier: MIT
#include "sim/symbols.h"

#include <array>

#include "sim/unmodelled_symbols.h"

namespace gpumeter::sim {
namespace {

#define GPUMETER_SIM_SYMBOL_NAME(symbol, type) #symbol,
// std::to_array, not deduction: over 300 names exceed what clang deduces through a fold.
constexpr auto kSymbolNames = std::to_array<std::string_view>(
    {GPUMETER_SIM_SYMBOLS(GPUMETER_SIM_SYMBOL_NAME) GPUMETER_SIM_UNMODELLED_DEVICE_SYMBOLS(
        GPUMETER_SIM_SYMBOL_NAME) GPUMETER_SIM_UNMODELLED_OTHER_SYMBOLS(GPUMETER_SIM_SYMBOL_NAME)});
#undef GPUMETER_SIM_SYMBOL_NAME

}  // namespace

bool is_simulated_symbol(std::string_view name) noexcept {
  for (std::string_view symbol : kSymbolNames) {
    if (symbol == name) return true;
  }
  return false;
}

}  // namespace gpumeter::sim
