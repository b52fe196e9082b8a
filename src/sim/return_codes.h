// SPDX-License-Identifier: MIT
// NVML return codes by name and by text: scenario files name them ("DRIVER_NOT_LOADED"),
// and the simulated nvmlErrorString answers with their text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpumeter::sim {

// The code named `name`: "UNKNOWN", "ERROR_UNKNOWN" and "NVML_ERROR_UNKNOWN" all work, as
// does "SUCCESS". Case-sensitive, like the vendor header's spelling.
std::optional<std::uint32_t> return_code_by_name(std::string_view name) noexcept;

// The short name ("GPU_IS_LOST"), or "UNKNOWN" for a code that does not exist.
std::string_view return_code_name(std::uint32_t code) noexcept;

// The text nvmlErrorString gives for `code` (a static string).
const char* return_code_text(std::uint32_t code) noexcept;

// Every name, comma-separated, for error messages.
std::string return_code_names();

}  // namespace gpumeter::sim
