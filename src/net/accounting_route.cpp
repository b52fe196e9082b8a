// SPDX-License-Identifier: MIT
#include "net/accounting_route.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "net/request_deadline.h"
#include "net/response.h"
#include "view/accounting_json.h"
#include "view/accounting_ledger.h"

namespace gpumeter::net {
namespace {

// Exited processes are named from the ledger when the database can be read; a database that
// does not exist yet (or fails) leaves them unnamed rather than failing the request.
std::optional<view::LedgerProcesses> ledger_for(StorePool* pool, const Snapshot& snapshot) {
  if (pool == nullptr) return std::nullopt;
  std::optional<view::LedgerProcesses> found;
  // Rendered once per round for every client: the ledger read is bounded like a request's.
  const RequestDeadline deadline(pool->request_budget());
  const auto opened = pool->with_store(
      [&](store::Store& store) {
        if (auto read = view::LedgerProcesses::read(store, snapshot)) found = std::move(*read);
      },
      deadline.at());
  if (!opened) return std::nullopt;
  return found;
}

std::string render(const Snapshot& snapshot, StorePool* pool) {
  const std::optional<view::LedgerProcesses> ledger = ledger_for(pool, snapshot);
  const view::KnownProcessLookup lookup = [&](const Device& device,
                                              const AccountingRecord& record) {
    if (auto known = view::known_from_snapshot(snapshot, record)) return known;
    return ledger ? ledger->find(device, record) : std::nullopt;
  };
  return view::dump_json(view::accounting_json(snapshot, lookup), true);
}

// The body of the latest snapshot, rendered once.
class RenderedAccounting {
 public:
  explicit RenderedAccounting(StorePool* pool) : pool_(pool) {}

  std::shared_ptr<const std::string> body(const std::shared_ptr<const Snapshot>& snapshot) {
    const std::lock_guard lock(mutex_);
    if (snapshot != snapshot_) {
      body_ = std::make_shared<const std::string>(render(*snapshot, pool_));
      snapshot_ = snapshot;
    }
    return body_;
  }

 private:
  StorePool* pool_;
  std::mutex mutex_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::shared_ptr<const std::string> body_;
};

}  // namespace

void add_accounting_route(HttpServer& server, const AccountingSources& sources) {
  auto rendered = std::make_shared<RenderedAccounting>(sources.store);
  const Sampler& sampler = sources.sampler;
  server.get("/api/v1/accounting",
             [&sampler, rendered](const httplib::Request&, httplib::Response& response) {
               const auto snapshot = sampler.snapshot();
               if (!snapshot)
                 return reply_error(response, 503, "no sample yet: the sampler is starting");
               response.set_content(*rendered->body(snapshot), kJsonType);
             });
}

}  // namespace gpumeter::net
