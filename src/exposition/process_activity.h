// SPDX-License-Identifier: MIT
// Recent SM use of every process, from the sampler's series, for the exposition's per-process
// and per-user gauges (a snapshot holds the device's utilization, not each process's).
#pragma once

#include "core/sampler.h"
#include "core/series.h"
#include "exposition/metrics.h"

namespace gpumeter::exposition {

// How far back the per-process SM ratios reach: long enough to smooth the driver's sample
// periods (1/6 s to 1 s), shorter than a usual scrape interval (15 s).
inline constexpr TimeUs kActivityWindowUs = 10'000'000;

// For each GPU, each process's SM busy time over the window of kActivityWindowUs that ends one
// driver sample period before end_us (the last period whose samples are surely read), as a
// fraction of it; busy seconds of processes known by the same pid are added.
// The window is first narrowed to the time the sampler was draining that GPU's per-process
// samples; a GPU with no such time in it is absent (no figures, rather than 0).
ProcessActivity recent_activity(const Series& series, TimeUs end_us);

// The same from a running sampler, read under its lock.
ProcessActivity recent_activity(const Sampler& sampler, TimeUs end_us);

}  // namespace gpumeter::exposition
