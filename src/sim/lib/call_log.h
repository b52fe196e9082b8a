// SPDX-License-Identifier: MIT
// A test's view of which entry points were called: with $GPUMETER_SIM_CALL_LOG naming a file,
// the simulated driver appends one line per call (the function's name) to it, so that a test
// can count how often gpumeter asks the driver for something. Unset: nothing is written.
#pragma once

#include <cstdio>
#include <string_view>

namespace gpumeter::sim::lib {

inline constexpr const char* kCallLogVariable = "GPUMETER_SIM_CALL_LOG";

class CallLog {
 public:
  CallLog() = default;
  CallLog(const CallLog&) = delete;
  CallLog& operator=(const CallLog&) = delete;
  ~CallLog() { close(); }

  // Opens the file $GPUMETER_SIM_CALL_LOG names (appending), or none. False when it is named
  // but cannot be opened.
  bool open();
  // One line: the function's name, written through at once so that a reader sees it.
  void note(std::string_view function);

 private:
  void close();
  std::FILE* file_ = nullptr;
};

}  // namespace gpumeter::sim::lib
