// Reads processes from procfs under an injectable root ("/" on a live system, a fixture tree
// in tests): user, command line, start time, container or job, namespace pid.
#pragma once

#include <filesystem>

#include "core/source.h"

namespace gpumeter::host {

class ProcfsProcessSource final : public ProcessSource {
 public:
  // `root` is the directory that holds proc/ and etc/passwd.
  explicit ProcfsProcessSource(std::filesystem::path root = "/");
  Maybe<HostProcess> describe(Pid pid) override;

 private:
  std::filesystem::path root_;
};

}  // namespace gpumeter::host
