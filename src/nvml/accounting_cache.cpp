// SPDX-License-Identifier: MIT
#include "nvml/accounting_cache.h"

#include <algorithm>

namespace gpumeter::nvml {

std::size_t appended_from(std::span<const unsigned> before, std::span<const unsigned> now) {
  if (now.empty()) return 0;
  // The first entry of `now` that was in `before` is where the kept entries start there.
  for (std::size_t dropped = 0; dropped < before.size(); ++dropped) {
    if (before[dropped] != now.front()) continue;
    const auto kept = before.subspan(dropped);
    if (kept.size() <= now.size() && std::ranges::equal(kept, now.first(kept.size())))
      return kept.size();
  }
  return 0;
}

RecheckSlice recheck_slice(AccountingCache& cache, std::size_t size) {
  if (size == 0) return {};
  if (cache.recheck_from >= size) cache.recheck_from = 0;
  const std::size_t count = (size + kRecheckRounds - 1) / kRecheckRounds;
  const RecheckSlice slice{.first = cache.recheck_from, .count = count};
  cache.recheck_from += count;
  return slice;
}

}  // namespace gpumeter::nvml
