// SPDX-License-Identifier: MIT
// GPM (Hopper and newer): the gpm_* rows of a GPU and of its MIG devices. GPM gives figures
// only between two samples, so the reader keeps the previous sample of every GPU and GPU
// instance from one read to the next, and computes the figures over the window between it
// and a new one. Samples closer than kGpmMinimumWindow (the driver's refresh period) are
// never compared: a read that comes sooner keeps the older sample and reports the last
// figures computed (or, before there are any, no_data).
//
// Internal to src/nvml/.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/model.h"
#include "nvml/device_query.h"
#include "nvml/library.h"

namespace gpumeter::nvml {

inline constexpr std::chrono::milliseconds kGpmMinimumWindow{100};

class GpmReader {
 public:
  using Values = std::array<Maybe<double>, kGpmMetrics.size()>;

  explicit GpmReader(const EntryPoints& api) noexcept : api_(api) {}
  GpmReader(const GpmReader&) = delete;
  GpmReader& operator=(const GpmReader&) = delete;
  ~GpmReader() { release(); }

  // Frees every kept sample (before nvmlShutdown).
  void release() noexcept;

  // Fills `state`'s gpm_* rows and each MIG device's gpm, for the GPU at `index`.
  void read(unsigned index, DeviceQuery& gpu, DeviceState& state, std::vector<MigDevice>* mig);

 private:
  // A GPU (gpu_instance -1) or one of its GPU instances.
  using Target = std::pair<unsigned, std::int64_t>;
  struct Track {
    abi::GpmSample previous = nullptr;
    std::chrono::steady_clock::time_point taken;
    std::optional<Values> last;
  };

  Values read_target(Target target, DeviceQuery& gpu);
  Maybe<void> sample_into(Target target, DeviceQuery& gpu, abi::GpmSample sample);
  Values between(abi::GpmSample older, abi::GpmSample newer) const;

  const EntryPoints& api_;
  std::map<Target, Track> tracks_;
};

}  // namespace gpumeter::nvml
