// SPDX-License-Identifier: MIT
// What the two-tier series (per-process utilisation and host samples) share: buckets aligned
// to multiples of their length, and a read-only view of an older and a newer buffer as one
// time-ordered sequence.
#pragma once

#include <cstddef>

#include "core/ring_buffer.h"

namespace gpumeter {

// Buckets of length `bucket_us` cover (end - bucket_us, end], with ends at multiples of
// bucket_us. The latest bucket end at or before t. Precondition: bucket_us > 0.
constexpr TimeUs bucket_floor(TimeUs t, TimeUs bucket_us) noexcept {
  const bool round_down = t % bucket_us != 0 && t < 0;
  return (t / bucket_us - (round_down ? 1 : 0)) * bucket_us;
}

// The end of the bucket that holds t. Precondition: bucket_us > 0.
constexpr TimeUs bucket_end(TimeUs t, TimeUs bucket_us) noexcept {
  const TimeUs floor = bucket_floor(t, bucket_us);
  return floor == t ? t : floor + bucket_us;
}

// Two buffers read as one sequence, `older` first. Precondition: every time in `older` is
// before every time in `newer`. Holds references: the buffers must outlive the view.
template <Timed T>
class TwoTier {
 public:
  TwoTier(const RingBuffer<T>& older, const RingBuffer<T>& newer)
      : older_(&older), newer_(&newer) {}

  std::size_t size() const noexcept { return older_->size() + newer_->size(); }
  bool empty() const noexcept { return size() == 0; }
  // The i-th oldest element. Precondition: i < size().
  const T& operator[](std::size_t i) const {
    return i < older_->size() ? (*older_)[i] : (*newer_)[i - older_->size()];
  }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size() - 1]; }
  // Index of the first element with time_us >= t (size() if none).
  std::size_t lower_bound(TimeUs t) const {
    const std::size_t i = older_->lower_bound(t);
    return i < older_->size() ? i : older_->size() + newer_->lower_bound(t);
  }
  // Index of the first element with time_us > t (size() if none).
  std::size_t upper_bound(TimeUs t) const {
    const std::size_t i = older_->upper_bound(t);
    return i < older_->size() ? i : older_->size() + newer_->upper_bound(t);
  }

 private:
  const RingBuffer<T>* older_;
  const RingBuffer<T>* newer_;
};

}  // namespace gpumeter
