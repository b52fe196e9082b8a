// SPDX-License-Identifier: MIT
// Declarations of every exported entry point, from the one list in sim/symbols.h. Each
// definition must match its declared signature exactly, or it does not compile.
#pragma once

#include "sim/symbols.h"

#define GPUMETER_SIM_EXPORT __attribute__((visibility("default")))

#define GPUMETER_SIM_DECLARE(symbol, type) \
  extern "C" GPUMETER_SIM_EXPORT gpumeter::sim::signatures::type symbol;
GPUMETER_SIM_SYMBOLS(GPUMETER_SIM_DECLARE)
#undef GPUMETER_SIM_DECLARE
