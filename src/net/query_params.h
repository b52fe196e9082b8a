// SPDX-License-Identifier: MIT
// Reading the query parameters of a GET request, with errors that name the parameter.
#pragma once

#include <httplib.h>

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/model.h"

namespace gpumeter::net {

// The parameter's value; absent when the request does not have it (an empty value counts
// as absent).
std::optional<std::string> query_param(const httplib::Request& request, const std::string& name);

// The time in parameter `name` (net/query_time.h), else `fallback` when it is absent.
// Errors: invalid_input "NAME: ... is not ..." listing the forms.
std::expected<TimeUs, Error> time_param(const httplib::Request& request, const std::string& name,
                                        TimeUs fallback, TimeUs now_us);

// A page size in parameter `name`, a whole number from 1 to `most`; `most` when it is absent.
// Errors: invalid_input "NAME: ... is not a whole number from 1 to MOST".
std::expected<std::size_t, Error> page_size_param(const httplib::Request& request,
                                                  const std::string& name, std::size_t most);

// A yes or no in parameter `name`: 1 or true, 0 or false; false when it is absent.
// Errors: invalid_input "NAME: ... is not 1, true, 0 or false".
std::expected<bool, Error> flag_param(const httplib::Request& request, const std::string& name);

// An invalid_input error "NAME: WHAT".
Error bad_param(std::string_view name, std::string_view what);

}  // namespace gpumeter::net
