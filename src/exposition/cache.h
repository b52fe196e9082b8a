// SPDX-License-Identifier: MIT
// The exposition of a running sampler's latest snapshot, rendered once per snapshot however
// many scrapes ask for it: a scrape of a snapshot already rendered costs a lock and a pointer
// copy; concurrent scrapes of a new one wait for one rendering.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "core/sampler.h"
#include "exposition/metrics.h"

namespace gpumeter::exposition {

// One snapshot's exposition, and the host it describes (for families added per request).
struct RenderedMetrics {
  std::string text;
  std::string host;
};

class MetricsCache {
 public:
  // The sampler must outlive the cache.
  MetricsCache(const Sampler& sampler, MetricsOptions options);

  // The exposition of the sampler's latest snapshot (its stats and recent per-process SM use
  // read when it is first rendered); null before the sampler's first snapshot. Thread-safe.
  std::shared_ptr<const RenderedMetrics> current();

 private:
  const Sampler& sampler_;
  MetricsOptions options_;
  std::mutex mutex_;
  std::shared_ptr<const Snapshot> rendered_for_;  // kept, so that its address is not reused
  std::shared_ptr<const RenderedMetrics> rendered_;
};

}  // namespace gpumeter::exposition
