#!/bin/sh
# The shared library exports the gpumeter_* C functions and nothing else (no C++ symbols, no
# bundled nlohmann-json), each under the GPUMETER_CLIENT_1 version node.
set -eu
library=$1
symbols=$(nm -D --defined-only "$library" | awk '{print $3}')
echo "$symbols"
stray=$(echo "$symbols" | grep -v -e '^gpumeter_[a-z_]*@@GPUMETER_CLIENT_1$' -e '^GPUMETER_CLIENT_1$' || true)
if [ -n "$stray" ]; then
  echo "unexpected exported symbols:" >&2
  echo "$stray" >&2
  exit 1
fi
echo "$symbols" | grep -q '^gpumeter_task_end@@GPUMETER_CLIENT_1$'
