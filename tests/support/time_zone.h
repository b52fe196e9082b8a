// SPDX-License-Identifier: MIT
// Runs a test under a chosen time zone (a POSIX TZ string, so no zone database is needed) and
// puts the process's zone back afterwards.
#pragma once

#include <stdlib.h>  // setenv, unsetenv: POSIX

#include <ctime>
#include <optional>
#include <string>

namespace gpumeter::cli::testing {

class TimeZone {
 public:
  explicit TimeZone(const char* zone) {
    if (const char* old = std::getenv("TZ")) previous_ = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~TimeZone() {
    if (previous_) {
      setenv("TZ", previous_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  TimeZone(const TimeZone&) = delete;
  TimeZone& operator=(const TimeZone&) = delete;

 private:
  std::optional<std::string> previous_;
};

// Central European time, with its daylight-saving rules (last Sundays of March and October).
inline constexpr const char* kCentralEurope = "CET-1CEST,M3.5.0,M10.5.0/3";

}  // namespace gpumeter::cli::testing
