#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the manual pages of gpumeter and of each of its commands into OUT_DIR, from their
# --help (help2man), compressed as Debian policy asks (gzip -9n): gpumeter.1.gz and
# gpumeter-COMMAND.1.gz; and nvl.1.gz, the Python client's script, from packaging/nvl.1. The
# commands are those `gpumeter --help` lists, so a new command gets its page without a change
# here.
# Usage: man-pages.sh GPUMETER OUT_DIR
set -eu
gpumeter=$1
out=$2
mkdir -p "$out"
# A fixed date (help2man honours it), so that the same sources make the same pages.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1795000000}
export SOURCE_DATE_EPOCH
help2man --no-info --section 1 --name "measure and account for GPU use" \
  --output "$out/gpumeter.1" "$gpumeter"
"$gpumeter" --help | sed -n '/^Subcommands:/,$p' | tail -n +2 |
  while read -r command summary; do
    [ -n "$command" ] || continue
    help2man --no-info --section 1 --name "$summary" --help-option="$command --help" \
      --output "$out/gpumeter-$command.1" "$gpumeter"
    # The page is the command's: its title and name say so.
    sed -i -e "s/^\.TH GPUMETER /.TH GPUMETER-$(echo "$command" | tr a-z A-Z) /" \
      -e "/^\.SH NAME/{n;s/^gpumeter /gpumeter-$command /}" "$out/gpumeter-$command.1"
  done
cp "$(dirname "$0")/../packaging/nvl.1" "$out/nvl.1"
for page in "$out"/*.1; do
  gzip -9n -f "$page"
done
