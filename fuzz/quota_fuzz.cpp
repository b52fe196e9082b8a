// SPDX-License-Identifier: MIT
// Quota files (src/view/quota; docs/report.md): "USER HOURS per day|week|month" lines.
// Promise: any text gives quotas or an invalid_input error "FILE:LINE: ..."; a parsed quota
// is a finite, non-negative number of hours for a day, a week or a month.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_check.h"
#include "view/quota.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumeter;
  const auto file = view::parse_quota_file(fuzz::text_of(data, size), "fuzz.quota");
  if (!file) {
    fuzz::check(file.error().code == ErrorCode::invalid_input, "quota: not invalid_input");
    fuzz::check(file.error().message.starts_with("fuzz.quota:"), "quota: error without file");
    return 0;
  }
  const auto valid = [](const std::optional<view::Quota>& quota) {
    return !quota || (std::isfinite(quota->gpu_hours) && quota->gpu_hours >= 0 &&
                      quota->period != view::CalendarPeriod::hour);
  };
  for (const auto& [user, quota] : file->users) {
    fuzz::check(!user.empty() && valid(quota), "quota: a user's quota out of range");
  }
  if (file->default_quota) {
    fuzz::check(valid(*file->default_quota), "quota: the default out of range");
  }
  return 0;
}
