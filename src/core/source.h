// The interfaces sources implement. Consumers never call a source; the collector does, and
// publishes a Snapshot.
#pragma once

#include <expected>
#include <string_view>

#include "core/error.h"
#include "core/model.h"

namespace gpumeter {

// A GPU backend (NVML, Jetson). One read() returns everything visible now; a failing
// device or field is carried as data inside the reading, not as an error. An error means
// nothing could be read at all (e.g. the driver went away).
class GpuSource {
 public:
  virtual ~GpuSource() = default;
  virtual std::string_view name() const noexcept = 0;
  virtual std::expected<GpuReading, Error> read() = 0;
};

// The host's view of processes (procfs, cgroups).
class ProcessSource {
 public:
  virtual ~ProcessSource() = default;
  // Unavailable::process_gone when the pid does not exist (or is hidden from us),
  // no_permission when it exists but cannot be read.
  virtual Maybe<HostProcess> describe(Pid pid) = 0;
};

}  // namespace gpumeter
