// SPDX-License-Identifier: MIT
#include "core/accounting.h"

namespace gpumeter {

std::string_view to_string(AccountingRefusal refusal) noexcept {
  switch (refusal) {
    case AccountingRefusal::needs_root: return "needs_root";
    case AccountingRefusal::mig_enabled: return "mig_enabled";
    case AccountingRefusal::not_supported: return "not_supported";
    case AccountingRefusal::gpu_lost: return "gpu_lost";
    case AccountingRefusal::no_such_gpu: return "no_such_gpu";
    case AccountingRefusal::error: return "error";
  }
  return "error";
}

}  // namespace gpumeter
