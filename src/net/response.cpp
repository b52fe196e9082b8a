// SPDX-License-Identifier: MIT
#include "net/response.h"

#include <nlohmann/json.hpp>
#include <string>

namespace gpumeter::net {

namespace {

template <class Json>
void reply(httplib::Response& response, const Json& document, int status) {
  response.status = status;
  // Replacement characters instead of an exception for a command line that is not UTF-8.
  response.set_content(document.dump(-1, ' ', false, Json::error_handler_t::replace), kJsonType);
}

}  // namespace

void reply_json(httplib::Response& response, const nlohmann::json& document, int status) {
  reply(response, document, status);
}

void reply_json(httplib::Response& response, const nlohmann::ordered_json& document, int status) {
  reply(response, document, status);
}

void reply_error(httplib::Response& response, int status, std::string_view message) {
  reply_json(response, nlohmann::json{{"error", std::string(message)}}, status);
}

}  // namespace gpumeter::net
