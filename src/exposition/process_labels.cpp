// SPDX-License-Identifier: MIT
#include "exposition/process_labels.h"

#include "view/gpu_status.h"

namespace gpumeter::exposition {

std::string owner_label(const Maybe<HostProcess>& host) {
  return view::owner_name(host).value_or("?");
}

std::string command_label(const Maybe<HostProcess>& host) {
  return view::brief_command(host).value_or("");
}

}  // namespace gpumeter::exposition
