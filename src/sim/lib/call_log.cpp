// SPDX-License-Identifier: MIT
#include "sim/lib/call_log.h"

#include <cstdlib>

namespace gpumeter::sim::lib {

bool CallLog::open() {
  close();
  const char* path = std::getenv(kCallLogVariable);
  if (path == nullptr || *path == '\0') return true;
  file_ = std::fopen(path, "ae");
  return file_ != nullptr;
}

void CallLog::note(std::string_view function) {
  if (file_ == nullptr) return;
  std::fprintf(file_, "%.*s\n", static_cast<int>(function.size()), function.data());
  std::fflush(file_);
}

void CallLog::close() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
}

}  // namespace gpumeter::sim::lib
