// SPDX-License-Identifier: MIT
#include "core/jemalloc_control.h"

#include <dlfcn.h>

namespace gpumeter {

Mallctl jemalloc_control() noexcept {
  static const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  return mallctl;
}

}  // namespace gpumeter
