#include "sim/symbols.h"

#include <array>

namespace gpumeter::sim {
namespace {

#define GPUMETER_SIM_SYMBOL_NAME(symbol, type) std::string_view(#symbol),
constexpr std::array kSymbolNames{GPUMETER_SIM_SYMBOLS(GPUMETER_SIM_SYMBOL_NAME)};
#undef GPUMETER_SIM_SYMBOL_NAME

}  // namespace

bool is_simulated_symbol(std::string_view name) noexcept {
  for (std::string_view symbol : kSymbolNames) {
    if (symbol == name) return true;
  }
  return false;
}

}  // namespace gpumeter::sim
