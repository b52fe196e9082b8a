// SPDX-License-Identifier: MIT
#include "cli/master_self.h"

#include <utility>

#include "view/list_json.h"

namespace gpumeter::cli {

std::expected<master::Json, Error> SelfReading::read() {
  if (!session_) {
    auto opened = open_session(options_);
    if (!opened) return std::unexpected(std::move(opened.error()));
    session_.emplace(std::move(*opened));
  }
  auto snapshot = session_->snapshot();
  if (!snapshot) return std::unexpected(std::move(snapshot.error()));
  return view::list_json(*snapshot);
}

}  // namespace gpumeter::cli
