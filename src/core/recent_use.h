// SPDX-License-Identifier: MIT
// Each process's recent engine use from one drain of a GPU's per-process utilisation buffer
// (GpuProcess::recent_use): what `list` and `top` show beside the memory a process holds; and
// from the sampler's series, with each process's recent CPU use and resident memory.
#pragma once

#include <span>

#include "core/host_series.h"
#include "core/model.h"
#include "core/series.h"
#include "core/source.h"

namespace gpumeter {

// How far back the figures reach: long enough that the driver's one-period samples (1/6 s to
// 1 s) average out, short enough to follow a job that just started or stopped.
inline constexpr TimeUs kRecentUseWindowUs = 5'000'000;

// Each engine's share of [now - window, now] that `samples` (one process's, driver stamps) were
// busy for, in percent: every sample covers one driver period (`period_us`) at its own
// percent, clamped to 0..100. A process without samples there was idle (the driver reports
// busy processes only).
RecentEngineUse recent_use_of(std::span<const ProcessGpuSample> samples, TimeUs period_us,
                              TimeUs now_us, TimeUs window_us = kRecentUseWindowUs);

// Gives every process `device` lists its recent use from `drained` (one drain of the device's
// whole buffer, GpuSource::drain_process_utilization), or the drain's reason (mig,
// not_supported, ...) when it failed. The driver period is the shortest gap between two of
// the drain's distinct stamps; with a single stamp, the window.
void attach_recent_use(Device& device, const Maybe<std::vector<PidGpuSample>>& drained,
                       TimeUs now_us, TimeUs window_us = kRecentUseWindowUs);

// CPU use over the last `window_us` of a process's host series (100 % is one core; no_data
// before the series reach that far back) and its resident memory at the last reading.
void attach_recent_host_use(HostProcess& process, const HostSeries& series,
                            TimeUs window_us = kRecentUseWindowUs);

// Both from the sampler's series, without a call to the driver or to /proc: each process's
// recent engine use on each GPU that lists it (found by pid and, where the snapshot knows it,
// start time; every process gets the last round's reason when that round could not drain the
// GPU's samples; just after the sampler started, the window is the time its series cover),
// and each described process's CPU and resident memory. What a sampler publishes when asked
// (SamplerConfig::recent_figures).
void attach_recent_figures(Snapshot& snapshot, const Series& series);

}  // namespace gpumeter
