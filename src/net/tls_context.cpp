// SPDX-License-Identifier: MIT
#include "net/tls_context.h"

#include <fmt/format.h>
#include <openssl/err.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace gpumeter::net {
namespace {

// OpenSSL's reason for the last failure, clearing its error queue.
std::string openssl_reason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no reason given";
  std::array<char, 256> text{};
  ERR_error_string_n(code, text.data(), text.size());
  return text.data();
}

// Tells "cannot read" (missing file, no permission) apart from "not a certificate".
std::expected<void, Error> readable(const std::filesystem::path& file, std::string_view what) {
  const std::ifstream stream(file, std::ios::binary);
  if (stream) return {};
  return std::unexpected(Error{ErrorCode::io, fmt::format("{} {}: cannot read: {}", what,
                                                          file.string(), std::strerror(errno))});
}

Error unusable(const std::filesystem::path& file, std::string_view what) {
  return Error{ErrorCode::invalid_input,
               fmt::format("{} {}: {}", what, file.string(), openssl_reason())};
}

}  // namespace

std::expected<void, Error> configure_tls(SSL_CTX& context, const std::filesystem::path& certificate,
                                         const std::filesystem::path& key) {
  ERR_clear_error();
  if (auto ok = readable(certificate, "--tls-cert"); !ok) return ok;
  if (auto ok = readable(key, "--tls-key"); !ok) return ok;
  SSL_CTX_set_min_proto_version(&context, TLS1_2_VERSION);
  SSL_CTX_set_options(&context, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  // An encrypted key would make OpenSSL ask for a passphrase on the terminal; a daemon fails.
  SSL_CTX_set_default_passwd_cb(&context, [](char*, int, int, void*) { return 0; });
  if (SSL_CTX_use_certificate_chain_file(&context, certificate.c_str()) != 1) {
    return std::unexpected(unusable(certificate, "--tls-cert"));
  }
  if (SSL_CTX_use_PrivateKey_file(&context, key.c_str(), SSL_FILETYPE_PEM) != 1) {
    return std::unexpected(unusable(key, "--tls-key"));
  }
  if (SSL_CTX_check_private_key(&context) != 1) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("--tls-key {} does not belong to the certificate in --tls-cert {}: {}",
                          key.string(), certificate.string(), openssl_reason())});
  }
  return {};
}

}  // namespace gpumeter::net
