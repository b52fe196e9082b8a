// SPDX-License-Identifier: MIT
// gpumeter-serve: every command, `daemon` and `master` included, with the network libraries
// they need; `gpumeter daemon` and `gpumeter master` hand over to it (cli/serve_handover.h).
#include "cli/cli.h"
#include "cli/serve_commands.h"

int main(int argc, char** argv) {
  return gpumeter::cli::run(argc, argv, gpumeter::cli::serve_commands());
}
