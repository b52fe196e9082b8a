// SPDX-License-Identifier: MIT
// The bearer-token check of the HTTP server: "Authorization: Bearer <token>" (RFC 6750),
// compared in time that does not depend on where the given token first differs.
#pragma once

#include <string_view>

namespace gpumeter::net {

// The token of an Authorization header value "Bearer <token>" (the scheme in any case, one
// or more spaces before the token); empty when the value has another form.
std::string_view bearer_token(std::string_view authorization);

// Whether `given` equals `expected`. Its running time depends only on the length of
// `expected`, so that timing a wrong guess tells nothing about the secret.
bool same_token(std::string_view given, std::string_view expected) noexcept;

}  // namespace gpumeter::net
