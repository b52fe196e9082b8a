// SPDX-License-Identifier: MIT
#include "master/http_transfer.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace gpumeter::master {
namespace {

// Options whose setting cannot fail for a valid handle on libcurl 7.85 and later; a failure
// would surface as the transfer's own error, so the codes are not kept one by one.
template <typename Value>
void set(CURL* easy, CURLoption option, Value value) {
  static_cast<void>(curl_easy_setopt(easy, option, value));
}

curl_off_t received_bytes(CURL* easy) {
  curl_off_t bytes = 0;
  curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &bytes);
  return bytes;
}

bool connected(CURL* easy) {
  curl_off_t micros = 0;
  curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &micros);
  return micros > 0;
}

}  // namespace

HttpTransfer::HttpTransfer(const HttpRequest& request, std::size_t index)
    : request_(request), index_(index), easy_(curl_easy_init()) {
  if (easy_ != nullptr) set_options();
}

HttpTransfer::~HttpTransfer() {
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
  curl_slist_free_all(headers_);
}

HttpTransfer* HttpTransfer::of(CURL* easy) {
  char* self = nullptr;
  curl_easy_getinfo(easy, CURLINFO_PRIVATE, &self);
  return reinterpret_cast<HttpTransfer*>(self);  // NOLINT: libcurl's void* slot holds `this`
}

void HttpTransfer::set_options() {
  const ClientOptions& options = request_.options;
  const auto timeout = static_cast<long>(options.timeout.count());
  set(easy_, CURLOPT_PRIVATE, this);
  set(easy_, CURLOPT_URL, (request_.url.origin() + request_.target).c_str());
  set(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
  set(easy_, CURLOPT_PROXY, "");  // never an http_proxy from the environment: tokens stay direct
  set(easy_, CURLOPT_FOLLOWLOCATION, 0L);
  set(easy_, CURLOPT_FORBID_REUSE, 1L);
  set(easy_, CURLOPT_NOSIGNAL, 1L);
  set(easy_, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  set(easy_, CURLOPT_TIMEOUT_MS, timeout);
  set(easy_, CURLOPT_CONNECTTIMEOUT_MS, timeout);
  set(easy_, CURLOPT_SSL_VERIFYPEER, 1L);
  set(easy_, CURLOPT_SSL_VERIFYHOST, 2L);
  if (options.ca_file) set(easy_, CURLOPT_CAINFO, options.ca_file->c_str());
  set(easy_, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request_.limits.max_body_bytes));
  set(easy_, CURLOPT_HEADERFUNCTION, &HttpTransfer::on_header);
  set(easy_, CURLOPT_HEADERDATA, this);
  set(easy_, CURLOPT_WRITEFUNCTION, &HttpTransfer::on_body);
  set(easy_, CURLOPT_WRITEDATA, this);
  headers_ = curl_slist_append(headers_, "Accept: application/json");
  headers_ = curl_slist_append(headers_, "User-Agent: gpumeter-master");
  if (options.token) {
    headers_ = curl_slist_append(headers_, ("Authorization: Bearer " + *options.token).c_str());
  }
  set(easy_, CURLOPT_HTTPHEADER, headers_);
}

// libcurl hands over one header line per call (the status line and the blank line included).
std::size_t HttpTransfer::on_header(char* /*data*/, std::size_t size, std::size_t count,
                                    void* self) {
  auto& transfer = *static_cast<HttpTransfer*>(self);
  const HttpLimits& limits = transfer.request_.limits;
  transfer.header_bytes_ += size * count;
  transfer.header_lines_ += 1;
  if (transfer.header_bytes_ > limits.max_header_bytes ||
      transfer.header_lines_ > limits.max_header_lines) {
    transfer.headers_too_large_ = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  return size * count;
}

// CURLOPT_MAXFILESIZE refuses an announced length over the cap; this catches the rest (chunked,
// or no length at all) as soon as the cap is passed.
std::size_t HttpTransfer::on_body(char* data, std::size_t size, std::size_t count, void* self) {
  auto& transfer = *static_cast<HttpTransfer*>(self);
  const std::size_t length = size * count;
  const std::size_t cap = transfer.request_.limits.max_body_bytes;
  const std::size_t needed = transfer.body_.size() + length;
  if (needed > cap) {
    transfer.body_too_large_ = true;
    return 0;
  }
  // Geometric growth, but never past the cap: left to itself the string may hold nearly twice
  // the cap, and ten hostile agents' answers in flight at the cap took the master past 400 MiB.
  if (needed > transfer.body_.capacity())
    transfer.body_.reserve(std::min(cap, std::max(needed, 2 * transfer.body_.capacity())));
  transfer.body_.append(data, length);
  return length;
}

HttpResult HttpTransfer::finish(CURLcode code) {
  if (code != CURLE_OK) return std::unexpected(failure(code));
  long status = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  return HttpAnswer{.status = static_cast<int>(status), .body = std::move(body_)};
}

HttpFailure HttpTransfer::failure(CURLcode code) const {
  using enum HttpFailure::Kind;
  const HttpLimits& limits = request_.limits;
  const std::string timeout = seconds_text(request_.options.timeout);
  if (headers_too_large_) {
    return {too_large, header_bytes_ > limits.max_header_bytes
                           ? fmt::format("headers over {} bytes", limits.max_header_bytes)
                           : fmt::format("over {} header lines", limits.max_header_lines)};
  }
  if (body_too_large_ || code == CURLE_FILESIZE_EXCEEDED) {
    return {too_large, fmt::format("an answer over {} bytes", limits.max_body_bytes)};
  }
  switch (code) {
    case CURLE_COULDNT_CONNECT:
      return {no_answer, "cannot connect (refused, or no route to the host)"};
    case CURLE_COULDNT_RESOLVE_HOST: return {no_answer, "cannot resolve the host name"};
    case CURLE_OPERATION_TIMEDOUT:
      if (!connected(easy_)) return {no_answer, fmt::format("no connection within {}", timeout)};
      if (header_bytes_ == 0) return {no_answer, fmt::format("no answer within {}", timeout)};
      return {no_answer,
              fmt::format("no whole answer within {} ({} bytes came)", timeout,
                          header_bytes_ + static_cast<std::size_t>(received_bytes(easy_)))};
    case CURLE_SSL_CONNECT_ERROR:
      return {no_answer, "TLS handshake failed (is it an https server?)"};
    case CURLE_SSL_CACERT_BADFILE: return {no_answer, "cannot load the CA certificates (ca-file)"};
    case CURLE_PEER_FAILED_VERIFICATION:
      return {no_answer, "the server's certificate is not trusted or does not name its host"};
    case CURLE_GOT_NOTHING: return {no_answer, "the connection closed without an answer"};
    case CURLE_SEND_ERROR: return {no_answer, "the connection broke while sending the request"};
    case CURLE_RECV_ERROR: return {no_answer, "the connection broke while receiving the answer"};
    case CURLE_WEIRD_SERVER_REPLY: return {no_answer, "not an HTTP answer"};
    default: return {no_answer, fmt::format("request failed: {}", curl_easy_strerror(code))};
  }
}

}  // namespace gpumeter::master
