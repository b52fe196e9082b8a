// SPDX-License-Identifier: MIT
// Replies of the HTTP routes: JSON documents and JSON errors, the same shape on every route.
#pragma once

#include <httplib.h>

#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace gpumeter::net {

inline constexpr const char* kJsonType = "application/json";

// Status `status` (200 unless told) with `document` as an application/json body, on one line.
void reply_json(httplib::Response& response, const nlohmann::json& document, int status = 200);
// The same for a document whose keys keep the order they were written in (view/json.h).
void reply_json(httplib::Response& response, const nlohmann::ordered_json& document,
                int status = 200);

// Status `status` with the body {"error": message}: 400 for a bad query parameter, 503 while
// there is nothing to serve yet, and so on.
void reply_error(httplib::Response& response, int status, std::string_view message);

}  // namespace gpumeter::net
