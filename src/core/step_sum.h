// SPDX-License-Identifier: MIT
// Sums of step functions, for memory held by a set of processes: each sequence holds samples
// of one process's amount, which stays as sampled until its next sample. A sequence is a
// RingBuffer or a TwoTier view (anything with size(), operator[] and upper_bound over samples
// with a time_us). Internal to attribution.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/model.h"

namespace gpumeter {

template <class Seq>
concept TimedSequence = requires(const Seq& sequence, std::size_t i, TimeUs t) {
  { sequence.size() } -> std::convertible_to<std::size_t>;
  { sequence[i].time_us } -> std::convertible_to<TimeUs>;
  { sequence.upper_bound(t) } -> std::convertible_to<std::size_t>;
};

// `value` maps a sample to its amount, or nullopt when the sample carries none.
template <TimedSequence Seq, class Value>
std::optional<std::uint64_t> value_at(const Seq& buffer, TimeUs t, Value value) {
  const std::size_t after = buffer.upper_bound(t);
  if (after == 0) return std::nullopt;
  return value(buffer[after - 1]);
}

// Σ over buffers of their value at t; nullopt when none has one.
template <TimedSequence Seq, class Value>
std::optional<std::uint64_t> sum_at(std::span<const Seq* const> buffers, TimeUs t, Value value) {
  std::optional<std::uint64_t> sum;
  for (const Seq* buffer : buffers) {
    if (const auto v = value_at(*buffer, t, value)) sum = sum.value_or(0) + *v;
  }
  return sum;
}

// The highest sum at `begin` and at every sample time in (begin, end]; nullopt when no buffer
// has a value in that time. Samples that share a time are applied together, so two processes
// trading memory at one instant do not make a peak that never existed.
template <TimedSequence Seq, class Value>
std::optional<std::uint64_t> peak_of_sum(std::span<const Seq* const> buffers, TimeUs begin,
                                         TimeUs end, Value value) {
  struct Step {
    TimeUs time;
    std::size_t buffer;
    std::optional<std::uint64_t> amount;
  };
  std::vector<std::optional<std::uint64_t>> current(buffers.size());
  std::vector<Step> steps;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const Seq& b = *buffers[i];
    current[i] = value_at(b, begin, value);
    for (std::size_t j = b.upper_bound(begin); j < b.size() && b[j].time_us <= end; ++j) {
      steps.push_back({b[j].time_us, i, value(b[j])});
    }
  }
  std::ranges::sort(steps, {}, &Step::time);  // a buffer has one sample per time at most
  const auto total = [&current] {
    std::optional<std::uint64_t> sum;
    for (const auto& v : current) {
      if (v) sum = sum.value_or(0) + *v;
    }
    return sum;
  };
  std::optional<std::uint64_t> peak = total();
  for (std::size_t k = 0; k < steps.size();) {
    const TimeUs time = steps[k].time;
    for (; k < steps.size() && steps[k].time == time; ++k)
      current[steps[k].buffer] = steps[k].amount;
    if (const auto sum = total()) peak = std::max(peak.value_or(0), *sum);
  }
  return peak;
}

}  // namespace gpumeter
