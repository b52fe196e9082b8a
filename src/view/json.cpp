// SPDX-License-Identifier: MIT
#include "view/json.h"

#include "view/iso_time.h"

namespace gpumeter::view {

std::string dump_json(const Json& document, bool one_line) {
  return document.dump(one_line ? -1 : 2, ' ', false, Json::error_handler_t::replace);
}

void put_time(Json& object, const std::string& key, TimeUs time_us) {
  object[key] = iso8601_utc(time_us);
  object[key + "_time_us"] = time_us;
}

Json text_or_null(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(text);
}

}  // namespace gpumeter::view
