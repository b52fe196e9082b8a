// SPDX-License-Identifier: MIT
#include "exposition/cache.h"

#include <utility>

#include "exposition/process_activity.h"

namespace gpumeter::exposition {

MetricsCache::MetricsCache(const Sampler& sampler, MetricsOptions options)
    : sampler_(sampler), options_(options) {}

std::shared_ptr<const RenderedMetrics> MetricsCache::current() {
  std::shared_ptr<const Snapshot> snapshot = sampler_.snapshot();
  if (!snapshot) return nullptr;
  const std::lock_guard lock(mutex_);
  if (snapshot != rendered_for_) {
    const ProcessActivity activity = recent_activity(sampler_, snapshot->time_us);
    rendered_ = std::make_shared<const RenderedMetrics>(
        RenderedMetrics{.text = render_metrics(*snapshot, sampler_.stats(), options_, activity),
                        .host = snapshot->hostname});
    rendered_for_ = std::move(snapshot);
  }
  return rendered_;
}

}  // namespace gpumeter::exposition
