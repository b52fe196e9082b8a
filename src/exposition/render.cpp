// SPDX-License-Identifier: MIT
#include "exposition/metrics.h"
#include "exposition/parts.h"

namespace gpumeter::exposition {

std::string render_metrics(const Snapshot& snapshot, const SamplerStats& stats,
                           const MetricsOptions& options, const ProcessActivity& activity) {
  fmt::memory_buffer out;
  const std::vector<Labels> labels = gpu_labels(snapshot);
  append_gpu_metrics(out, snapshot, labels);
  append_board_metrics(out, snapshot, labels);
  append_accounting_metrics(out, snapshot, labels);
  append_mig_metrics(out, snapshot);
  append_process_metrics(out, snapshot, labels, activity, options.processes);
  append_vgpu_metrics(out, snapshot);
  const Labels host = host_labels(snapshot.hostname);
  append_build_info(out, host);
  if (options.sampler_metrics) append_sampler_metrics(out, host, stats);
  return fmt::to_string(out);
}

}  // namespace gpumeter::exposition
