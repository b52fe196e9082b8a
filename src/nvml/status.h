// SPDX-License-Identifier: MIT
// How NVML return codes become the model's reasons for an absent value.
//
// Internal to src/nvml/: callers above the backend only ever see the Unavailable reasons.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/unavailable.h"
#include "nvml/abi.h"

namespace gpumeter::nvml {

// What a call was about: a device field, or one process on a device. The difference
// matters only for NOT_FOUND, which for a process means it exited between two calls.
enum class CallScope : std::uint8_t { device, process };

// The reason a value is absent after `code` (which must not be kSuccess):
//   NOT_SUPPORTED, FUNCTION_NOT_FOUND         -> not_supported
//   NO_PERMISSION                              -> no_permission
//   GPU_IS_LOST, GPU_NOT_FOUND, RESET_REQUIRED -> gpu_lost
//   NOT_FOUND in CallScope::process            -> process_gone
//   anything else (UNKNOWN, TIMEOUT, ...)      -> error
Unavailable to_unavailable(abi::Return code, CallScope scope = CallScope::device) noexcept;

// True for the codes that mean the whole GPU is gone until it is reset.
bool means_gpu_lost(abi::Return code) noexcept;

// True when a versioned call (…_v2 with a version word, …V) is not understood by this
// driver, so the caller should fall back to the older call.
bool means_try_older_call(abi::Return code) noexcept;

// The constant's name without the NVML_ERROR_ prefix ("GPU_IS_LOST", "SUCCESS"), or
// "UNRECOGNIZED" for a value this build does not know.
std::string_view return_name(abi::Return code) noexcept;

// For messages: "GPU_IS_LOST (15)".
std::string describe_return(abi::Return code);

}  // namespace gpumeter::nvml
