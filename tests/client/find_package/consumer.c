// SPDX-License-Identifier: MIT
/* Links the installed library and calls it: connecting to a socket where nothing listens must
 * say so, and gpumeter_strerror must describe it. */
#include <gpumeter/gpumeter.h>
#include <stdio.h>

int main(int argc, char** argv) {
  gpumeter_client* client = NULL;
  int status = gpumeter_connect(argc > 1 ? argv[1] : "/nonexistent/gpumeter.sock", &client);
  printf("%s\n", gpumeter_strerror(status));
  return status == GPUMETER_E_NO_DAEMON && client == NULL ? 0 : 1;
}
