// SPDX-License-Identifier: MIT
// jemalloc's control interface (mallctl), when jemalloc is the process's allocator
// (gpumeter-serve links it): found by name at run time, so that builds on the C library's
// allocator need nothing of it.
#pragma once

#include <cstddef>

namespace gpumeter {

using Mallctl = int (*)(const char* name, void* old_value, std::size_t* old_size, void* new_value,
                        std::size_t new_size);

// Null when jemalloc is not the allocator.
Mallctl jemalloc_control() noexcept;

}  // namespace gpumeter
