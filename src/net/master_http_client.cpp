#include "net/master_http_client.h"

#include <fmt/format.h>
#include <httplib.h>

namespace gpumeter::net {

std::unique_ptr<httplib::ClientImpl> make_client(const AgentUrl& url,
                                                 const ClientOptions& options) {
  std::unique_ptr<httplib::ClientImpl> client;
  if (url.https) {
    auto tls = std::make_unique<httplib::SSLClient>(url.host, url.port);
    if (options.ca_file) tls->set_ca_cert_path(options.ca_file->string());
    tls->enable_server_certificate_verification(true);
    client = std::move(tls);
  } else {
    client = std::make_unique<httplib::ClientImpl>(url.host, url.port);
  }
  client->set_connection_timeout(options.timeout);
  client->set_read_timeout(options.timeout);
  client->set_write_timeout(options.timeout);
  client->set_keep_alive(false);
  client->set_follow_location(false);
  if (options.token) client->set_bearer_token_auth(*options.token);
  return client;
}

std::string seconds_text(std::chrono::milliseconds duration) {
  return fmt::format("{:g}s", std::chrono::duration<double>(duration).count());
}

std::string describe_failure(httplib::Error error, std::chrono::milliseconds timeout) {
  switch (error) {
    case httplib::Error::Connection: return "cannot connect (refused, or no route to the host)";
    case httplib::Error::ConnectionTimeout:
      return fmt::format("no connection within {}", seconds_text(timeout));
    case httplib::Error::Read: return fmt::format("no answer within {}", seconds_text(timeout));
    case httplib::Error::Write: return "the connection broke while sending the request";
    case httplib::Error::SSLConnection: return "TLS handshake failed (is it an https server?)";
    case httplib::Error::SSLLoadingCerts: return "cannot load the CA certificates (ca-file)";
    case httplib::Error::SSLServerVerification:
      return "the server's certificate is not trusted or does not name its host";
    default: return fmt::format("request failed: {}", httplib::to_string(error));
  }
}

}  // namespace gpumeter::net
