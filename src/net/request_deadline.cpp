// SPDX-License-Identifier: MIT
#include "net/request_deadline.h"

#include <fmt/format.h>

#include "net/response.h"

namespace gpumeter::net {

void reply_store_error(httplib::Response& response, const Error& error,
                       const RequestDeadline& deadline) {
  if (deadline.passed()) {
    return reply_error(response, 503,
                       fmt::format("history database: the query ran past the request's {} s "
                                   "deadline and was stopped; ask for a shorter window",
                                   static_cast<double>(deadline.budget().count()) / 1000.0));
  }
  reply_error(response, 500, "history database: " + error.message);
}

void reply_store_unavailable(httplib::Response& response, const Error& error) {
  reply_error(response, 503, "history database: " + error.message);
}

}  // namespace gpumeter::net
