// SPDX-License-Identifier: MIT
#include "net/http_exchange.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "net/gzip_body.h"

namespace gpumeter::net {
namespace {

MHD_Result add_header(void* request, MHD_ValueKind /*kind*/, const char* name, const char* value) {
  static_cast<httplib::Request*>(request)->headers.emplace(name, value != nullptr ? value : "");
  return MHD_YES;
}

MHD_Result add_param(void* request, MHD_ValueKind /*kind*/, const char* name, const char* value) {
  static_cast<httplib::Request*>(request)->params.emplace(name, value != nullptr ? value : "");
  return MHD_YES;
}

// Compresses the body in place when the client and the type allow it. Every response says
// that it varies with Accept-Encoding, so that caches keep the two forms apart.
void maybe_compress(const httplib::Request& request, httplib::Response& response) {
  if (response.body.empty() || response.has_header("Content-Encoding")) return;
  if (!compressible(response.get_header_value("Content-Type"))) return;
  response.set_header("Vary", "Accept-Encoding");
  if (!accepts_gzip(request.get_header_value("Accept-Encoding"))) return;
  auto compressed = gzip(response.body);
  if (!compressed) return;
  response.body = std::move(*compressed);
  response.set_header("Content-Encoding", "gzip");
}

using MhdResponse = std::unique_ptr<MHD_Response, decltype(&MHD_destroy_response)>;

}  // namespace

httplib::Request read_request(MHD_Connection* connection, const char* method, const char* path,
                              const char* version) {
  httplib::Request request;
  request.method = method;
  request.path = path;
  request.version = version;
  MHD_get_connection_values(connection, MHD_HEADER_KIND, &add_header, &request);
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &add_param, &request);
  return request;
}

std::size_t target_bytes(const httplib::Request& request) {
  std::size_t bytes = request.path.size();
  for (const auto& [name, value] : request.params) bytes += name.size() + value.size() + 2;
  return bytes;
}

bool send_response(MHD_Connection* connection, const httplib::Request& request,
                   httplib::Response& response, bool close) {
  maybe_compress(request, response);
  MhdResponse reply(MHD_create_response_from_buffer(response.body.size(), response.body.data(),
                                                    MHD_RESPMEM_MUST_COPY),
                    &MHD_destroy_response);
  if (!reply) return false;
  for (const auto& [name, value] : response.headers) {
    // The library writes the framing headers itself.
    if (name == "Content-Length" || name == "Transfer-Encoding") continue;
    MHD_add_response_header(reply.get(), name.c_str(), value.c_str());
  }
  if (close && !response.has_header("Connection")) {
    MHD_add_response_header(reply.get(), "Connection", "close");
  }
  const int status = response.status > 0 ? response.status : 200;
  return MHD_queue_response(connection, static_cast<unsigned>(status), reply.get()) == MHD_YES;
}

void send_last_words(int fd, int status, std::string_view reason) {
  const std::string body = nlohmann::json{{"error", reason}}.dump();
  const std::string answer = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
      "Connection: close\r\n\r\n{}",
      status, status == 408 ? "Request Timeout" : "Bad Request", body.size(), body);
  // One small write into an idle socket's send buffer; nothing to retry if it does not fit.
  (void)::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace gpumeter::net
