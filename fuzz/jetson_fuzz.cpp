// SPDX-License-Identifier: MIT
// A Jetson board's text files (src/jetson; docs/jetson.md): nvmap's client list, /proc/meminfo,
// the first line of /etc/nv_tegra_release and the device tree's compatible list.
// Promise: any text gives figures or nothing, never a crash: nvmap's clients come out with
// distinct non-zero pids in ascending order; a release is "MAJOR.MINOR[.PATCH...]" digits.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "jetson/board.h"
#include "jetson/nvmap.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumeter;
  const std::string_view text = fuzz::text_of(data, size);
  const auto clients = jetson::parse_nvmap_clients(text);
  for (std::size_t i = 0; i < clients.size(); ++i) {
    fuzz::check(clients[i].pid != 0, "nvmap: pid 0");
    fuzz::check(i == 0 || clients[i - 1].pid < clients[i].pid, "nvmap: pids out of order");
  }
  static_cast<void>(jetson::parse_meminfo(text));
  if (const auto release = jetson::parse_l4t_release(text)) {
    fuzz::check(!release->empty() && release->find_first_not_of("0123456789.") == std::string::npos,
                "release: not digits and dots");
    fuzz::check(release->find('.') != std::string::npos, "release: no minor version");
  }
  const std::string soc = jetson::soc_of(text);
  fuzz::check(soc.find('\0') == std::string::npos, "soc: a NUL inside");
  return 0;
}
