# SPDX-License-Identifier: MIT
"""`nvl`: the GPUs of this machine at a glance, as nvgpu's `nvl` showed them: `gpumeter list`
(which GPU is free, who is on the busy ones), with any arguments passed on."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from ._client import GpumeterError
from ._gpus import _executable


def main(argv: Optional[List[str]] = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    try:
        executable = _executable()
    except GpumeterError as error:
        print(f"nvl: {error}", file=sys.stderr)
        return 2
    os.execv(executable, [executable, "list", *arguments])
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
