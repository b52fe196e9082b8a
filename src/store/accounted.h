// SPDX-License-Identifier: MIT
// A process's figures from the driver's accounting buffer (core/accounting.h), recorded once
// the process has exited: lifetime averages, kept apart from what gpumeter sampled.
//
// How it joins the ledger (docs/accounting.md, "History"): if the ledger already has the
// process on that GPU (same pid, a start time within kAccountedStartToleranceUs, or an unknown
// start time and a first sighting during its life), the sampled figures stay as they are; the
// driver's figures go into the row's accounting_* columns, its peak memory raises the row's
// peak (a peak between two samples is one the sampler could not see) and the row is final.
// Otherwise the sampler never saw it (shorter than an interval, or before the daemon ran): a
// new row is made from the driver's figures alone, with figures_source = 'accounting', written
// as one process interval over the process's life (held throughout, busy for its lifetime
// mean, no energy), so that its minutes and hours count in reports. Writing the same record
// again changes nothing.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/model.h"

namespace gpumeter::store {

inline constexpr TimeUs kAccountedStartToleranceUs = 5'000'000;

struct AccountedProcess {
  std::string gpu_uuid;
  std::uint32_t gpu_index = 0;
  Pid pid = 0;
  TimeUs start_time_us = 0;              // the driver's
  std::uint64_t time_ms = 0;             // how long it ran
  std::optional<double> gpu_percent;     // lifetime mean
  std::optional<double> memory_percent;  // lifetime mean
  std::optional<std::uint64_t> max_memory_bytes;

  TimeUs end_us() const { return start_time_us + static_cast<TimeUs>(time_ms) * 1000; }
};

// From an exited record of a GPU with a uuid; nullopt for a running record.
std::optional<AccountedProcess> accounted_process(const Device& device,
                                                  const AccountingRecord& record);

// A uuid, percentages within 0-100. Errors: invalid_input naming the field.
std::expected<void, Error> validate(const AccountedProcess& record);

}  // namespace gpumeter::store
