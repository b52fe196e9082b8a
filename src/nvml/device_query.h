// SPDX-License-Identifier: MIT
// Calls into one device during one read. The query remembers when the GPU turns out to be
// lost (GPU_IS_LOST, GPU_NOT_FOUND, RESET_REQUIRED): every later call on it is skipped and
// answers Unavailable::gpu_lost, so a dead GPU costs one failed call per read, not fifty.
//
// Internal to src/nvml/. Tests build one over a hand-filled EntryPoints with fake functions.
#pragma once

#include <expected>

#include "core/unavailable.h"
#include "nvml/abi.h"
#include "nvml/library.h"
#include "nvml/status.h"

namespace gpumeter::nvml {

// A return code, or the reason no call was made (entry absent: not_supported; GPU already
// lost: gpu_lost).
using CallResult = std::expected<abi::Return, Unavailable>;

class DeviceQuery {
 public:
  DeviceQuery(const EntryPoints& api, abi::Device handle) noexcept : api_(api), handle_(handle) {}

  const EntryPoints& api() const noexcept { return api_; }
  bool lost() const noexcept { return lost_; }
  abi::Device handle() const noexcept { return handle_; }

  // Calls entry(handle, args...) unless the entry is absent or the GPU is already lost.
  template <class Fn, class... Args>
  CallResult invoke(const Entry<Fn>& entry, Args... args) noexcept {
    if (lost_) return std::unexpected(Unavailable::gpu_lost);
    if (!entry) return std::unexpected(Unavailable::not_supported);
    const abi::Return code = entry.fn(handle_, args...);
    if (means_gpu_lost(code)) lost_ = true;
    return code;
  }

  // invoke(), with any code other than SUCCESS turned into its reason.
  template <class Fn, class... Args>
  Maybe<void> call(const Entry<Fn>& entry, Args... args) noexcept {
    return succeeded(invoke(entry, args...));
  }

  // For calls whose last parameter is one output: entry(handle, args..., &out) -> out.
  template <class T, class Fn, class... Args>
  Maybe<T> get(const Entry<Fn>& entry, Args... args) noexcept {
    T out{};
    if (auto ok = call(entry, args..., &out); !ok) return std::unexpected(ok.error());
    return out;
  }

  // SUCCESS -> {}; anything else -> the reason (see to_unavailable).
  static Maybe<void> succeeded(CallResult result, CallScope scope = CallScope::device) noexcept {
    if (!result) return std::unexpected(result.error());
    if (*result != abi::kSuccess) return std::unexpected(to_unavailable(*result, scope));
    return {};
  }

 private:
  const EntryPoints& api_;
  abi::Device handle_;
  bool lost_ = false;
};

}  // namespace gpumeter::nvml
