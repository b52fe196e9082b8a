// SPDX-License-Identifier: MIT
#include "core/vgpu.h"

namespace gpumeter {

const char* to_string(LicenseState state) noexcept {
  switch (state) {
    case LicenseState::uninitialized: return "uninitialized";
    case LicenseState::unlicensed_unrestricted: return "unlicensed_unrestricted";
    case LicenseState::unlicensed_restricted: return "unlicensed_restricted";
    case LicenseState::unlicensed: return "unlicensed";
    case LicenseState::licensed: return "licensed";
    case LicenseState::unknown: break;
  }
  return "unknown";
}

const char* to_string(LicenseExpiryKind kind) noexcept {
  switch (kind) {
    case LicenseExpiryKind::invalid: return "invalid";
    case LicenseExpiryKind::valid: return "valid";
    case LicenseExpiryKind::not_applicable: return "not_applicable";
    case LicenseExpiryKind::permanent: return "permanent";
    case LicenseExpiryKind::not_available: break;
  }
  return "not_available";
}

const char* to_string(VmIdKind kind) noexcept {
  return kind == VmIdKind::domain_id ? "domain_id" : "uuid";
}

}  // namespace gpumeter
