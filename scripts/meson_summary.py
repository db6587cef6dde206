#!/usr/bin/env python3
"""meson_summary.py [--extra-failed N] testlog.json...

Prints one closing line `N passed, M failed, K skipped` from meson's JSON test logs (OK and
EXPECTEDFAIL pass; FAIL, UNEXPECTEDPASS, TIMEOUT and ERROR fail) and exits 1 when anything
failed. --extra-failed counts stages that broke before their tests could run."""
import json
import sys


def main() -> int:
    args = sys.argv[1:]
    failed = passed = skipped = 0
    if args[:1] == ["--extra-failed"]:
        failed, args = int(args[1]), args[2:]
    for path in args:
        with open(path, encoding="utf-8") as f:
            for line in filter(str.strip, f):
                result = json.loads(line)["result"]
                if result in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif result == "SKIP":
                    skipped += 1
                else:
                    failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
