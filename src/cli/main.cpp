#include "cli/cli.h"

int main(int argc, char** argv) {
  return gpumeter::cli::run(argc, argv);
}
