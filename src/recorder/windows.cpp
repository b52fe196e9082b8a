// SPDX-License-Identifier: MIT
#include "recorder/windows.h"

#include <algorithm>

namespace gpumeter::recorder {

TimeUs floor_multiple(TimeUs t, TimeUs step_us) {
  const TimeUs remainder = t % step_us;
  return remainder < 0 ? t - remainder - step_us : t - remainder;
}

TimeUs next_multiple(TimeUs t, TimeUs step_us) {
  return floor_multiple(t, step_us) + step_us;
}

std::vector<Window> record_windows(TimeUs from, TimeUs until, TimeUs interval_us) {
  std::vector<Window> windows;
  for (TimeUs begin = from; begin < until;) {
    const TimeUs end =
        std::min({next_multiple(begin, interval_us), next_multiple(begin, kMinuteUs), until});
    windows.push_back({.begin_us = begin, .end_us = end});
    begin = end;
  }
  return windows;
}

}  // namespace gpumeter::recorder
