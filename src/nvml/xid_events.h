// SPDX-License-Identifier: MIT
// XID errors: the driver's reports of GPU faults (79 fallen off the bus, 48 double-bit ECC, 13
// graphics engine exception, ...). NVML delivers them through an event set: the watch creates
// one, registers each GPU for XID events the first time a read meets it, and takes what is
// waiting with a timeout of 0 at the start of every read, so that the sampler thread never
// waits on the driver for them. Counts start when the GPU is registered: a fault before
// gpumeter watched is not seen (the driver keeps no history of them).
//
// Internal to src/nvml/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "core/model.h"
#include "nvml/device_query.h"
#include "nvml/library.h"

namespace gpumeter::nvml {

class XidWatch {
 public:
  explicit XidWatch(const EntryPoints& api) noexcept : api_(api) {}
  XidWatch(const XidWatch&) = delete;
  XidWatch& operator=(const XidWatch&) = delete;
  ~XidWatch() { release(); }

  // Frees the event set (before nvmlShutdown).
  void release() noexcept;

  // Takes every event waiting now (a bounded number per call); never waits.
  void drain() noexcept;

  // Registers the GPU at `index` if it is not yet, and fills `state`'s xid rows: the count and
  // the last code (0: none) since it was registered, or why there are none: no_data on the
  // read that registers it, not_supported where the driver has no event sets or the board no
  // XID events.
  void read(unsigned index, DeviceQuery& gpu, DeviceState& state);

 private:
  struct Watched {
    abi::Device handle = nullptr;
    std::uint64_t count = 0;
    std::uint64_t last_code = 0;
  };

  Maybe<void> ensure_set();

  const EntryPoints& api_;
  abi::EventSet set_ = nullptr;
  std::optional<Unavailable> set_refused_;   // the set could not be made: why, for good
  std::map<unsigned, Watched> watched_;      // registered GPUs, by index
  std::map<unsigned, Unavailable> refused_;  // GPUs whose registration was refused for good
};

}  // namespace gpumeter::nvml
