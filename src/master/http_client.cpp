// SPDX-License-Identifier: MIT
#include "master/http_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <utility>

#include "master/http_transfer.h"

namespace gpumeter::master {
namespace {

// libcurl wants its global state set up once, before handles are made.
void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// How long one wait for socket activity may last: short enough that the deadlines libcurl
// keeps are met (it shortens the wait itself when a timeout is due sooner).
constexpr int kMaxWaitMs = 1000;

}  // namespace

struct HttpClient::Multi {
  CURLM* handle = curl_multi_init();
  ~Multi() { curl_multi_cleanup(handle); }
  Multi() = default;
  Multi(const Multi&) = delete;
  Multi& operator=(const Multi&) = delete;
};

// One call of run_all: the transfers in flight, each result handed over as it comes in.
class Batch {
 public:
  Batch(CURLM* multi, std::span<const HttpRequest> requests, std::size_t max_connections,
        const HttpClient::ResultHandler& on_result)
      : multi_(multi),
        requests_(requests),
        max_connections_(max_connections),
        on_result_(on_result),
        transfers_(requests.size()) {}

  ~Batch() {
    for (auto& transfer : transfers_) {
      if (transfer) curl_multi_remove_handle(multi_, transfer->handle());
    }
  }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // Runs until every transfer ended or `stop` is requested.
  void run(const std::stop_token& stop) {
    admit();
    while (finished_ < requests_.size() && !stop.stop_requested()) {
      int running = 0;
      curl_multi_perform(multi_, &running);
      collect();
      admit();
      if (finished_ == requests_.size() || stop.stop_requested()) break;
      curl_multi_poll(multi_, nullptr, 0, kMaxWaitMs, nullptr);
    }
  }

 private:
  // Starts requests while fewer than the cap are in flight.
  void admit() {
    while (next_ < requests_.size() && next_ - finished_ < max_connections_) {
      auto transfer = std::make_unique<HttpTransfer>(requests_[next_], next_);
      if (transfer->handle() == nullptr ||
          curl_multi_add_handle(multi_, transfer->handle()) != CURLM_OK) {
        ++finished_;
        on_result_(next_, std::unexpected(HttpFailure{.message = "out of memory for a request"}));
      } else {
        transfers_[next_] = std::move(transfer);
      }
      ++next_;
    }
  }

  // Takes the results of the transfers that ended and frees their handles.
  void collect() {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      HttpTransfer* transfer = HttpTransfer::of(message->easy_handle);
      const CURLcode code = message->data.result;  // read before the handle goes
      const std::size_t index = transfer->index();
      HttpResult result = transfer->finish(code);
      curl_multi_remove_handle(multi_, transfer->handle());
      transfers_[index].reset();  // the connection closes before the result is read
      ++finished_;
      on_result_(index, std::move(result));
    }
  }

  CURLM* multi_;
  std::span<const HttpRequest> requests_;
  std::size_t max_connections_;
  const HttpClient::ResultHandler& on_result_;
  std::vector<std::unique_ptr<HttpTransfer>> transfers_;
  std::size_t next_ = 0;      // the next request to start
  std::size_t finished_ = 0;  // results in (finished_ <= next_)
};

// Batch admits at most max_connections transfers at a time itself, rather than leaving the
// rest pending inside libcurl: each transfer's timeout then starts when its connection does.
HttpClient::HttpClient(std::size_t max_connections)
    : max_connections_(std::max<std::size_t>(max_connections, 1)),
      multi_((init_curl_once(), std::make_unique<Multi>())) {}

HttpClient::~HttpClient() = default;

void HttpClient::run_all(std::span<const HttpRequest> requests, const ResultHandler& on_result,
                         const std::stop_token& stop) {
  Batch batch(multi_->handle, requests, max_connections_, on_result);
  // Wakes the wait in run() at once; curl_multi_wakeup may be called from any thread.
  const std::stop_callback wake(stop, [this] { curl_multi_wakeup(multi_->handle); });
  batch.run(stop);
}

std::vector<HttpResult> HttpClient::get_all(std::span<const HttpRequest> requests,
                                            const std::stop_token& stop) {
  std::vector<HttpResult> results(
      requests.size(), std::unexpected(HttpFailure{.message = "stopped before the answer came"}));
  run_all(
      requests,
      [&results](std::size_t index, HttpResult result) { results[index] = std::move(result); },
      stop);
  return results;
}

HttpResult HttpClient::get(const HttpRequest& request, const std::stop_token& stop) {
  return std::move(get_all(std::span(&request, 1), stop).front());
}

std::string seconds_text(std::chrono::milliseconds duration) {
  return fmt::format("{:g}s", std::chrono::duration<double>(duration).count());
}

}  // namespace gpumeter::master
