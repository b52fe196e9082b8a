// SPDX-License-Identifier: MIT
#include "cli/cli.h"
#include "cli/serve_handover.h"

int main(int argc, char** argv) {
  return gpumeter::cli::run(argc, argv, gpumeter::cli::handed_over_commands());
}
