// SPDX-License-Identifier: MIT
// TLS for the HTTP server: the certificate chain and private key files (PEM) loaded into an
// OpenSSL context, with an error that names the file that could not be used.
#pragma once

#include <openssl/ssl.h>

#include <expected>
#include <filesystem>

#include "core/error.h"

namespace gpumeter::net {

// Sets up `context` for serving: TLS 1.2 or later, no compression, the certificate chain
// from `certificate` (PEM, the server's certificate first) and its private key from `key`
// (PEM, unencrypted). Errors: io when a file cannot be read, invalid_input when it holds no
// usable certificate or key, or the key does not belong to the certificate; the message names
// the file and carries OpenSSL's reason.
std::expected<void, Error> configure_tls(SSL_CTX& context, const std::filesystem::path& certificate,
                                         const std::filesystem::path& key);

}  // namespace gpumeter::net
