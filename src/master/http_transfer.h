// SPDX-License-Identifier: MIT
// One GET of the master's HTTP client as a libcurl easy handle: its options (the bounds, TLS,
// no redirects), the callbacks that enforce the header and body limits, and the result in
// words. Private to master_http_client.cpp; code outside src/net never includes curl.h.
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <string>

#include "master/http_client.h"

namespace gpumeter::master {

class HttpTransfer {
 public:
  // Prepares the handle (nothing is sent before it is added to a multi handle). Errors: none;
  // a request libcurl refuses (an option it lacks) fails when it runs.
  // `index`: the request's place in its batch, for the caller to find its result's slot.
  HttpTransfer(const HttpRequest& request, std::size_t index);
  ~HttpTransfer();
  HttpTransfer(const HttpTransfer&) = delete;
  HttpTransfer& operator=(const HttpTransfer&) = delete;

  CURL* handle() const noexcept { return easy_; }
  std::size_t index() const noexcept { return index_; }

  // The result once libcurl reported the transfer done with `code`.
  HttpResult finish(CURLcode code);

  static HttpTransfer* of(CURL* easy);

 private:
  static std::size_t on_header(char* data, std::size_t size, std::size_t count, void* self);
  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* self);
  void set_options();
  HttpFailure failure(CURLcode code) const;

  const HttpRequest& request_;
  std::size_t index_;
  CURL* easy_;
  curl_slist* headers_ = nullptr;
  std::string body_;
  std::size_t header_bytes_ = 0;
  std::size_t header_lines_ = 0;
  bool headers_too_large_ = false;
  bool body_too_large_ = false;
};

}  // namespace gpumeter::master
