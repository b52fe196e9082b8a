// SPDX-License-Identifier: MIT
// A device's "gpm": how the GPM figures of a Hopper or newer GPU follow its utilisation.
#include "sim/parse_parts.h"

namespace gpumeter::sim::parse {

void gpm(Reader& reader, const Cursor& at, DeviceSpec& d) {
  const ObjectCursor object = reader.object(
      at, {"sm_occupancy_ratio", "tensor_ratio", "nvlink_tx_mib_per_s", "nvlink_rx_mib_per_s"});
  if (auto v = reader.member(object, "sm_occupancy_ratio"))
    d.gpm.sm_occupancy_ratio = reader.number_in(*v, 0, 1);
  if (auto v = reader.member(object, "tensor_ratio"))
    d.gpm.tensor_ratio = reader.number_in(*v, 0, 1);
  if (auto v = reader.member(object, "nvlink_tx_mib_per_s"))
    d.gpm.nvlink_tx_mib_per_s = reader.number_in(*v, 0, 1e7);
  if (auto v = reader.member(object, "nvlink_rx_mib_per_s"))
    d.gpm.nvlink_rx_mib_per_s = reader.number_in(*v, 0, 1e7);
}

}  // namespace gpumeter::sim::parse
