#!/usr/bin/env python3
"""issue_cost.py BUILD_DIR [COUNT]: instruction counts (valgrind callgrind) of COUNT issues vs COUNT direct
register-write sequences, each minus a 0-iteration run of the same binary so that process
start-up cancels out. Two issue paths: issue::emit of a descriptor validated once (the trusted
path a validated plan takes) and issue_once (validation on every issue). Prints instructions per
issue for each, the unvalidated path's ratio, and last the validated path's ratio."""
import os
import re
import subprocess
import sys
import tempfile


def instructions(exe: str, mode: str, n: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", exe, mode, str(n)],
                           capture_output=True, text=True, check=True)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if not m:
            raise SystemExit("no callgrind total in:\n" + r.stderr)
        return int(m.group(1))


def main() -> int:
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    exe = os.path.join(build, "bench", "issue_cost")
    per = {}
    for mode in ("issue", "unvalidated", "raw"):
        per[mode] = (instructions(exe, mode, n) - instructions(exe, mode, 0)) / n
    print(f"emit (validated once):  {per['issue']:.0f} instructions per issue")
    print(f"issue_once (validates): {per['unvalidated']:.0f} instructions per issue")
    print(f"direct register writes: {per['raw']:.0f} instructions per issue")
    print(f"unvalidated issue_once / direct: {per['unvalidated'] / per['raw']:.2f}x")
    print(f"ratio emit / direct: {per['issue'] / per['raw']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
