// The HTTP client settings that the master uses for agents and for a Prometheus server alike:
// bounded waits, no redirects, certificate checks for https, and failures in words.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "net/master_url.h"

// Kept out of this header so that code outside src/net never includes httplib.h.
namespace httplib {
class ClientImpl;
enum class Error;
}  // namespace httplib

namespace gpumeter::net {

struct ClientOptions {
  std::chrono::milliseconds timeout{2000};       // to connect, and for each read and write
  std::optional<std::string> token;              // "Authorization: Bearer <token>"
  std::optional<std::filesystem::path> ca_file;  // https: trust these certificates only
};

// A client for `url`'s origin; https verifies the server's certificate and host name.
std::unique_ptr<httplib::ClientImpl> make_client(const AgentUrl& url, const ClientOptions& options);

// Why no answer came, in words that point at what to check.
std::string describe_failure(httplib::Error error, std::chrono::milliseconds timeout);

// "2s", "0.3s"
std::string seconds_text(std::chrono::milliseconds duration);

}  // namespace gpumeter::net
