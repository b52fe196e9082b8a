// SPDX-License-Identifier: MIT
#include "master/backoff.h"

#include <algorithm>

namespace gpumeter::master {

Backoff::Backoff(std::uint32_t max_wait_rounds) noexcept
    : max_wait_(std::max<std::uint32_t>(max_wait_rounds, 1)) {}

bool Backoff::due() noexcept {
  if (skip_ == 0) return true;
  --skip_;
  return false;
}

void Backoff::succeeded() noexcept {
  failures_ = 0;
  skip_ = 0;
}

void Backoff::failed() noexcept {
  if (failures_ < UINT32_MAX) ++failures_;
  // 2^(f-1) rounds from this one, without overflowing the shift for long outages.
  const std::uint32_t shift = std::min<std::uint32_t>(failures_ - 1, 31);
  const auto wait =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{1} << shift, max_wait_));
  skip_ = wait - 1;
}

}  // namespace gpumeter::master
