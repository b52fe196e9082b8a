#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library exports exactly the functions its header declares with GPUMETER_API, each
# under the GPUMETER_CLIENT_1 version node, and nothing else (no C++ symbols, no bundled
# nlohmann-json).
set -eu
library=$1 header=$2
exported=$(nm -D --defined-only "$library" | awk '$3 != "GPUMETER_CLIENT_1" {print $3}' | sort)
declared=$(tr '\n' ' ' < "$header" | grep -o 'GPUMETER_API [^(#]*gpumeter_[a-z_]*(' |
           sed -e 's/($//' -e 's/.*[ *]//' -e 's/$/@@GPUMETER_CLIENT_1/' | sort)
echo "exported:"; echo "$exported"
if [ -z "$declared" ] || [ "$exported" != "$declared" ]; then
  echo "the exports differ from the header's GPUMETER_API declarations:" >&2
  echo "$declared" >&2
  exit 1
fi
