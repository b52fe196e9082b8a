// SPDX-License-Identifier: MIT
// Read-only connections to the history database for the HTTP server's threads. A store::Store
// is one SQLite connection and not thread-safe: each request borrows a connection of its own
// and gives it back when done, so that requests read at once (WAL mode) while the daemon's
// recorder writes through its own connection.
#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/request_deadline.h"
#include "store/store.h"

namespace gpumeter::net {

class StorePool {
 public:
  // Connections to `database`, opened read-only when first needed, reading as `host` (the
  // name the daemon records under; empty: gethostname()); at most `keep` idle ones are kept
  // for the next requests.
  StorePool(std::filesystem::path database, std::string host, std::size_t keep = 8,
            std::chrono::milliseconds request_budget = kRequestDeadline);

  // How long one request may spend reading (net/request_deadline.h).
  std::chrono::milliseconds request_budget() const noexcept { return request_budget_; }

  // Runs `reader` with a connection of its own, whose queries stop at `deadline` (steady
  // clock; they fail with io, and the caller answers 503). Errors: those of store::Store::open
  // (read-only), e.g. a database that does not exist yet.
  std::expected<void, Error> with_store(const std::function<void(store::Store&)>& reader,
                                        std::chrono::steady_clock::time_point deadline);

  const std::filesystem::path& path() const noexcept { return database_; }

 private:
  std::expected<std::unique_ptr<store::Store>, Error> borrow();
  void give_back(std::unique_ptr<store::Store> store);

  std::filesystem::path database_;
  std::string host_;
  std::size_t keep_;
  std::chrono::milliseconds request_budget_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<store::Store>> idle_;
};

}  // namespace gpumeter::net
