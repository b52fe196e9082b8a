// SPDX-License-Identifier: MIT
#include "net/store_pool.h"

#include <utility>

#include "store/query_deadline.h"

namespace gpumeter::net {

StorePool::StorePool(std::filesystem::path database, std::string host, std::size_t keep,
                     std::chrono::milliseconds request_budget)
    : database_(std::move(database)),
      host_(std::move(host)),
      keep_(keep),
      request_budget_(request_budget) {
  store::enable_query_deadlines();  // before the pool opens its first connection
}

std::expected<std::unique_ptr<store::Store>, Error> StorePool::borrow() {
  {
    const std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto store = std::move(idle_.back());
      idle_.pop_back();
      return store;
    }
  }
  // Opened outside the lock: opening reads the file's header and schema.
  auto opened = store::Store::open(
      database_,
      {.host = host_, .read_only = true, .page_cache_kib = store::kLongLivedPageCacheKib});
  if (!opened) return std::unexpected(std::move(opened.error()));
  return std::make_unique<store::Store>(std::move(*opened));
}

void StorePool::give_back(std::unique_ptr<store::Store> store) {
  const std::lock_guard lock(mutex_);
  if (idle_.size() < keep_) idle_.push_back(std::move(store));
}

std::expected<void, Error> StorePool::with_store(const std::function<void(store::Store&)>& reader,
                                                 std::chrono::steady_clock::time_point deadline) {
  auto store = borrow();
  if (!store) return std::unexpected(std::move(store.error()));
  {
    const store::QueryDeadline bounded(deadline);
    reader(**store);
  }
  give_back(std::move(*store));
  return {};
}

}  // namespace gpumeter::net
