// SPDX-License-Identifier: MIT
// The bridge between libmicrohttpd and the routes' request and response types (httplib's
// Request and Response, plain structs the routes were written against): a request read from
// a connection, and a response queued on it. libmicrohttpd is included only here and in
// http_server.cpp.
#pragma once

#include <httplib.h>
#include <microhttpd.h>

#include <cstddef>
#include <string_view>

namespace gpumeter::net {

// The request on `connection`: `method`, `path` (decoded, without the query), `version`, the
// header fields in the order received, and the query's parameters (decoded; "?flag" gives
// an empty value).
httplib::Request read_request(MHD_Connection* connection, const char* method, const char* path,
                              const char* version);

// The request target's length as sent (path and query), for its limit.
std::size_t target_bytes(const httplib::Request& request);

// Queues `response` on `connection`: its status, headers and body, gzip-compressed when the
// request accepts gzip and the type is worth it. `close` adds "Connection: close". False when
// the library could not queue it (the connection is then closed).
bool send_response(MHD_Connection* connection, const httplib::Request& request,
                   httplib::Response& response, bool close);

// For a connection the library closes without an answer (see ConnectionWatch::Watched::
// unparsed_bytes): a JSON error with `status` written straight to the plain-HTTP socket `fd`,
// best effort and without blocking, before the library closes it.
void send_last_words(int fd, int status, std::string_view reason);

}  // namespace gpumeter::net
