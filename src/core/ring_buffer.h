// SPDX-License-Identifier: MIT
// RingBuffer<T>: a bounded, time-ordered buffer of samples. It allocates as samples arrive, up
// to a fixed capacity, and never past it; when full, a new sample replaces the oldest. Its
// storage follows the number of samples it holds: it grows by a quarter when full and shrinks to
// twice the samples when a quarter full, so a buffer that drops old samples as it takes new
// ones does not creep up to its capacity. Lookups by key are binary searches. The key is the
// integer member `Key` names, `time_us` (TimeUs) unless told otherwise; samples are ordered by
// it. T is default-constructible.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/model.h"

namespace gpumeter {

template <class T>
concept Timed = requires(const T& sample) {
  { sample.time_us } -> std::convertible_to<TimeUs>;
};

// The type of the member `key` names in T.
template <class T, auto key>
using KeyOf = std::remove_cvref_t<decltype(std::declval<const T&>().*key)>;

// `key` names an integer member of T that orders its samples.
template <class T, auto key>
concept KeyedBy = std::is_member_object_pointer_v<decltype(key)> && std::integral<KeyOf<T, key>>;

template <class T, auto Key = &T::time_us>
  requires KeyedBy<T, Key>
class RingBuffer {
 public:
  using KeyType = KeyOf<T, Key>;

  // Precondition: capacity >= 1.
  explicit RingBuffer(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return capacity_; }
  // Bytes of sample storage allocated now: at most capacity() * sizeof(T).
  std::size_t allocated_bytes() const noexcept { return slots_.capacity() * sizeof(T); }

  // The i-th oldest sample. Precondition: i < size().
  const T& operator[](std::size_t i) const { return slots_[(head_ + i) % slots_.size()]; }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size_ - 1]; }

  // Appends `sample`, dropping the oldest when full. Precondition: the buffer is empty or
  // sample's key > back()'s key (the caller rejects older and equal keys).
  void push(const T& sample) {
    if (size_ == slots_.size()) {
      if (size_ == capacity_) {
        slots_[head_] = sample;
        head_ = (head_ + 1) % capacity_;
        return;
      }
      // Grow geometrically but never past capacity_, so a full buffer holds exactly capacity_.
      // By a quarter, not double: series hold thousands of buffers, and the slack is what they
      // waste (a quarter instead of a half took 1.2 MiB off an hour of 8 GPUs x 64 processes,
      // docs/benchmarks.md); the extra copies are few, since a buffer grows once in a while.
      reallocate(std::min(capacity_, std::max(kMinimumSlots, slots_.size() + slots_.size() / 4)));
    }
    slots_[(head_ + size_) % slots_.size()] = sample;
    ++size_;
  }

  // Index of the first sample with key >= k (size() if none).
  std::size_t lower_bound(KeyType k) const {
    return partition([k](const T& s) { return s.*Key < k; });
  }
  // Index of the first sample with key > k (size() if none).
  std::size_t upper_bound(KeyType k) const {
    return partition([k](const T& s) { return s.*Key <= k; });
  }
  // Whether a sample with exactly this key is stored.
  bool contains(KeyType k) const {
    const std::size_t i = lower_bound(k);
    return i < size_ && (*this)[i].*Key == k;
  }

  // Applies `change` to every sample in place. Precondition: it keeps the samples' order by key
  // (shifting every key by the same amount, say).
  template <class Change>
  void update_keys(Change change) {
    for (std::size_t i = 0; i < size_; ++i) change(slots_[(head_ + i) % slots_.size()]);
  }

  // Drops every sample whose key is below k.
  void drop_before(KeyType k) {
    const std::size_t n = lower_bound(k);
    if (n == 0) return;
    head_ = (head_ + n) % slots_.size();
    size_ -= n;
    if (size_ == 0) {
      slots_ = std::vector<T>();  // releases the storage
      head_ = 0;
    } else if (slots_.size() > kMinimumSlots && size_ < slots_.size() / 4) {
      reallocate(std::max(kMinimumSlots, 2 * size_));
    }
  }

 private:
  static constexpr std::size_t kMinimumSlots = 16;

  // Moves the samples, oldest first, into storage of exactly `slots` slots.
  void reallocate(std::size_t slots) {
    std::vector<T> fresh(slots);
    for (std::size_t i = 0; i < size_; ++i) fresh[i] = (*this)[i];
    slots_ = std::move(fresh);
    head_ = 0;
  }

  // The first index whose sample does not satisfy `before` (samples are ordered by key).
  template <class Pred>
  std::size_t partition(Pred before) const {
    std::size_t lo = 0;
    std::size_t hi = size_;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (before((*this)[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  std::size_t capacity_;
  std::vector<T> slots_;  // a ring: the samples lie from head_ on, wrapping at the end
  std::size_t head_ = 0;  // slot of the oldest sample
  std::size_t size_ = 0;
};

}  // namespace gpumeter
