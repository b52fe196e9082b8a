// SPDX-License-Identifier: MIT
// The "self" node: the caller reads this machine (a one-shot collection) and renders it.
#include <utility>

#include "master/fetch.h"
#include "master/status_check.h"

namespace gpumeter::master {
namespace {

class SelfFetcher final : public StatusFetcher {
 public:
  explicit SelfFetcher(SelfReader reader) : reader_(std::move(reader)) {}

  PollOutcome fetch() override {
    auto document = reader_();
    if (!document) return PollOutcome::failed(NodeState::unreachable, document.error().message);
    // The renderer is ours, but the fleet promises checked documents whatever their source.
    if (auto checked = check_status_document(*document); !checked) {
      return PollOutcome::failed(NodeState::garbage, checked.error());
    }
    return PollOutcome::good(*document);
  }

 private:
  SelfReader reader_;
};

}  // namespace

std::unique_ptr<StatusFetcher> make_self_fetcher(SelfReader reader) {
  return std::make_unique<SelfFetcher>(std::move(reader));
}

}  // namespace gpumeter::master
