// SPDX-License-Identifier: MIT
#include "nvml/xid_events.h"

#include <algorithm>

#include "nvml/status.h"

namespace gpumeter::nvml {
namespace {

// More events than this in one read are left for the next: a storm of XIDs (a GPU in a fault
// loop reports hundreds a second) never holds the sampler up.
constexpr int kMaxEventsPerDrain = 1000;

// A refusal that retrying will not change (as opposed to a lost GPU or a transient error).
bool for_good(Unavailable reason) {
  return reason == Unavailable::not_supported || reason == Unavailable::no_permission;
}

}  // namespace

void XidWatch::release() noexcept {
  if (set_ != nullptr && api_.event_set_free) api_.event_set_free.fn(set_);
  set_ = nullptr;
}

Maybe<void> XidWatch::ensure_set() {
  if (set_ != nullptr) return {};
  if (set_refused_) return std::unexpected(*set_refused_);
  if (!api_.event_set_create || !api_.register_events || !api_.event_set_wait) {
    set_refused_ = Unavailable::not_supported;
    return std::unexpected(*set_refused_);
  }
  const abi::Return code = api_.event_set_create.fn(&set_);
  if (code == abi::kSuccess) return {};
  set_ = nullptr;
  const Unavailable reason = to_unavailable(code);
  if (for_good(reason)) set_refused_ = reason;
  return std::unexpected(reason);
}

void XidWatch::drain() noexcept {
  if (set_ == nullptr || watched_.empty()) return;
  for (int taken = 0; taken < kMaxEventsPerDrain; ++taken) {
    abi::EventData data{};
    if (api_.event_set_wait.fn(set_, &data, 0) != abi::kSuccess) return;  // TIMEOUT: none left
    if ((data.event_type & abi::kEventTypeXidCriticalError) == 0) continue;
    const auto it = std::ranges::find_if(
        watched_, [&](const auto& entry) { return entry.second.handle == data.device; });
    if (it == watched_.end()) continue;
    ++it->second.count;
    it->second.last_code = data.event_data;
  }
}

void XidWatch::read(unsigned index, DeviceQuery& gpu, DeviceState& state) {
  const auto fill = [&](Maybe<double> count, Maybe<double> last) {
    state[DeviceMetric::xid_errors] = count;
    state[DeviceMetric::xid_last] = last;
  };
  const auto absent = [&](Unavailable reason) {
    fill(std::unexpected(reason), std::unexpected(reason));
  };
  if (auto refused = refused_.find(index); refused != refused_.end())
    return absent(refused->second);
  auto watched = watched_.find(index);
  if (watched == watched_.end()) {
    if (auto made = ensure_set(); !made) return absent(made.error());
    const Maybe<void> registered =
        gpu.call(api_.register_events, abi::kEventTypeXidCriticalError, set_);
    if (!registered) {
      if (for_good(registered.error())) refused_.emplace(index, registered.error());
      return absent(registered.error());
    }
    watched_.emplace(index, Watched{gpu.handle()});
    // Watching starts now: a count of 0 would claim a quiet past that nobody saw (a one-shot
    // `list` reads only this once).
    return absent(Unavailable::no_data);
  }
  fill(static_cast<double>(watched->second.count), static_cast<double>(watched->second.last_code));
}

}  // namespace gpumeter::nvml
