// SPDX-License-Identifier: MIT
// Why `gpumeter available` found fewer free GPUs than asked for, in one line for stderr:
// "no free GPU: 3 of 3 in use (GPU 0: 100% util, 893MiB/16.0GiB; GPU 2: lost; ...)".
#pragma once

#include <cstddef>
#include <string>

#include "core/model.h"
#include "core/selection.h"

namespace gpumeter::cli {

// `wanted` is how many GPUs were asked for (1 when "all free ones" was asked for).
std::string describe_shortage(const GpuReading& reading, const Selection& selection,
                              std::size_t wanted);

// When enough GPUs were free but other callers had reserved some of them.
std::string describe_reserved(std::size_t free, std::size_t reserved_here, std::size_t wanted);

// "GPU 1: 100% util, 893MiB/16.0GiB", "GPU 2: lost", ...
std::string describe_exclusion(const Device& device, Exclusion reason);

}  // namespace gpumeter::cli
