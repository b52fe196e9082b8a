// SPDX-License-Identifier: MIT
// The parts attribution (core/attribution.h) is assembled from: per-GPU figures, the energy
// split and host figures. Internal to core; exposed in a header only so that each part lives in
// its own file.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/attribution.h"

namespace gpumeter {

// Sorted, without duplicates.
using KeySet = std::span<const ProcessKey>;
bool contains(KeySet keys, const ProcessKey& key);

// The stretch of the window one per-process record accounts for: the part of its period (a
// driver sample period, or a coarse bucket) that lies inside the window, with the record's
// percents as constant rates (the proportional rule, which the energy split and the peak use).
// It holds a copy of the record: a coarse record is stored in another form
// (core/coarse_record.h), so there is none to point to.
struct Segment {
  TimeUs begin_us = 0;
  TimeUs end_us = 0;
  ProcessGpuRecord record;
  bool in_set = false;  // the process belongs to the set asked about
  bool coarse = false;  // the record is a coarse bucket's
};

// What the bounds and the estimate need of a record besides its stretch of the window.
struct RecordSpan {
  // The record's percents are averages over this length: its period, or its bucket.
  TimeUs length_us = 0;
  // Where the record's busy time may lie: its driver period; for a coarse record its bucket
  // widened by one driver period at each end, since the raw periods folded into a bucket may
  // reach across its ends.
  TimeUs begin_us = 0;
  TimeUs end_us = 0;
  // Set where the markers rule applies to a fine record (docs/attribution.md): the length of
  // the period's parts outside the window over which the estimate still spreads the record's
  // busy time, once the side beyond an edge where the process was idle next door is left out.
  // Absent: the estimate is the proportional part inside.
  std::optional<TimeUs> kept_outside_us;
};

// Where the sampler drained per-process samples (its first and last drained device samples),
// which the markers rule needs; absent for the proportional rule.
struct EdgeContext {
  std::optional<std::pair<TimeUs, TimeUs>> drained;
};

// RecordSpan::kept_outside_us of fine record i of `records`, whose period is
// (period_begin_us, records[i].time_us]: absent unless edges.drained is given and the process
// was idle beyond an edge of the window that the period crosses.
std::optional<TimeUs> kept_outside_us(const FineGpuRecords& records, std::size_t i,
                                      TimeUs period_begin_us, TimeUs period_us,
                                      TimeUs folded_until_us, Window window,
                                      const EdgeContext& edges);

using PerEngine = std::array<std::int64_t, kEngineCount>;

// The set's busy time per engine in percent × µs: the estimate and its bounds, summed in
// integers so that the only rounding is the final division.
struct BusyBounds {
  PerEngine lower{};
  PerEngine estimate{};
  PerEngine upper{};
};

// Adds to `sums` the busy time `record` puts inside the window, whose stretch of it is
// [part_begin_us, part_end_us] (empty for a bucket next to the window).
void add_bounds(BusyBounds& sums, const ProcessGpuRecord& record, TimeUs part_begin_us,
                TimeUs part_end_us, const RecordSpan& span, Window window);

// Segments of every process on the device, from both tiers, clipped to the window; with
// `bounds`, the set's busy time inside the window is added to it too.
std::vector<Segment> segments_of(const DeviceSeries& device, KeySet keys, Window window,
                                 TimeUs period_us, const EdgeContext& edges,
                                 BusyBounds* bounds = nullptr);

// The energy counter at t, J (core/energy_curve.cpp): between two readings a and b, the
// counter's rise spread in proportion to the integral of the driver's power samples,
// E(a) + (E(b) - E(a)) × ∫_a^t p / ∫_a^b p, where the power samples cover (a, b]; else
// interpolated linearly. no_data when t is not between two readings; not_supported (or the
// readings' own reason) when the device has no counter.
Maybe<double> energy_at(const DeviceSeries& device, TimeUs t);

// The device's energy over the window and its split by SM rates (see EnergyUse). The split is
// absent, with split_known's reason, when no per-process samples were drained (no_data, or mig
// on a GPU in MIG mode: undrained_reason).
EnergyUse split_energy(const DeviceSeries& device, std::span<const Segment> segments, Window window,
                       Maybe<void> split_known);

// Each process's share of the device's energy over the window, by the same rule as
// split_energy: `owners[i]` is the index (0..process_count-1) of the process segments[i]
// belongs to. The reasons are those of split_energy's processes_joules.
Maybe<std::vector<double>> energy_per_process(const DeviceSeries& device,
                                              std::span<const Segment> segments,
                                              std::span<const std::size_t> owners,
                                              std::size_t process_count, Window window,
                                              Maybe<void> split_known);

// Why a window no drained sample covers has no per-process figures: mig when the samples in
// and around it were not drained because the GPU is in MIG mode, not_supported when the device
// keeps no per-process utilisation, else no_data.
Unavailable undrained_reason(const RingBuffer<DeviceRecord>& samples, Window window);

GpuUsage gpu_usage(const DeviceSeries& device, std::uint32_t index, KeySet keys, Window window,
                   EdgeRule rule);

// The set's GPU memory on the device over the window.
GpuMemoryUse memory_of(const DeviceSeries& device, KeySet keys, Window window);

// Whether the device keeps no per-process utilisation around the window (every device sample
// in it, and the first after it, says not_supported): its figures are device-level ones.
bool device_level(const DeviceSeries& device, Window window);
// The device-level figures (core/device_level.cpp): the device's utilisation over the window,
// with the bounds and the edge rules of per-process samples, each reading standing for the time
// since the one before it; the energy of its busy stretches is the set's, the rest idle.
GpuUsage device_level_usage(const DeviceSeries& device, std::uint32_t index, KeySet keys,
                            Window window, EdgeRule rule);

HostUsage host_usage(const Series& series, KeySet keys, Window window);

}  // namespace gpumeter
