// SPDX-License-Identifier: MIT
// gpumeter_gpu_accounting_*: NVML accounting mode per GPU, and how many records its driver
// buffer holds. A GPU whose mode cannot be read has no sample.
#include "exposition/parts.h"

namespace gpumeter::exposition {

void append_accounting_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                               const std::vector<Labels>& labels) {
  {
    Family mode(out, "gpumeter_gpu_accounting_enabled", MetricType::gauge,
                "1 while the driver's accounting mode is on for the GPU, 0 while it is off");
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const Maybe<Accounting>& a = snapshot.gpus.devices[i].accounting;
      if (a) mode.sample(labels[i], a->enabled ? 1 : 0);
    }
  }
  Family records(out, "gpumeter_gpu_accounting_records", MetricType::gauge,
                 "Processes, running or exited, in the driver's accounting buffer for the GPU");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Maybe<Accounting>& a = snapshot.gpus.devices[i].accounting;
    if (a && a->records) records.sample(labels[i], static_cast<double>(a->records->size()));
  }
}

}  // namespace gpumeter::exposition
