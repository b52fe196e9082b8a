// SPDX-License-Identifier: MIT
// The time one HTTP request may spend in the history database. Every route that reads the
// database gives its connection the request's deadline (store::Store::set_deadline): a query
// that runs past it stops, and the request answers 503 with a JSON error instead of holding a
// thread and its memory for as long as the query would take.
#pragma once

#include <httplib.h>

#include <chrono>

#include "core/error.h"

namespace gpumeter::net {

inline constexpr std::chrono::seconds kRequestDeadline{5};

class RequestDeadline {
 public:
  // Starts now: `budget` (the daemon's --request-deadline) from the moment a route takes the
  // request.
  explicit RequestDeadline(std::chrono::milliseconds budget = kRequestDeadline)
      : budget_(budget), at_(std::chrono::steady_clock::now() + budget) {}

  std::chrono::milliseconds budget() const noexcept { return budget_; }
  std::chrono::steady_clock::time_point at() const noexcept { return at_; }
  bool passed() const noexcept { return std::chrono::steady_clock::now() >= at_; }

 private:
  std::chrono::milliseconds budget_;
  std::chrono::steady_clock::time_point at_;
};

// Answers a failed read of the history database: 503 naming the deadline when it passed (the
// query was stopped), else 500 with the error's message.
void reply_store_error(httplib::Response& response, const Error& error,
                       const RequestDeadline& deadline);

// Answers a request whose history database could not be opened (damaged, a newer gpumeter's,
// not there yet): 503, for the daemon serves on and the database may open later
// (docs/daemon.md, "A database the daemon cannot open").
void reply_store_unavailable(httplib::Response& response, const Error& error);

}  // namespace gpumeter::net
