// SPDX-License-Identifier: MIT
// The /proc files the host readers parse (src/host/proc_parse, cgroup, reservation_record):
// a process's stat, status, cmdline and cgroup, the system's stat, and a GPU reservation
// file. Any process can put bytes into its own comm and cmdline, so these read hostile text.
// Promise: no crash, and the few invariants below.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "host/cgroup.h"
#include "host/proc_parse.h"
#include "host/reservation_record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumeter;
  const auto text = fuzz::text_of(data, size);
  (void)host::parse_stat(text);
  const auto status = host::parse_status(text);
  (void)host::innermost_pid(status, 1234);
  (void)host::parse_status_memory(text);
  (void)host::parse_boot_time(text);
  (void)host::parse_cgroup(text);
  const auto argv = host::parse_cmdline(text);
  for (const auto& arg : argv) {
    fuzz::check(arg.size() <= text.size(), "cmdline: an argument longer than the file");
  }
  if (const auto record = host::parse_record(text)) {
    // A record we would write must read back as itself.
    const auto again = host::parse_record(host::format_record(*record));
    fuzz::check(again && again->owner_pid == record->owner_pid &&
                    again->owner_start_ticks == record->owner_start_ticks &&
                    again->expires_us == record->expires_us,
                "reservation: a record does not read back as itself");
  }
  return 0;
}
