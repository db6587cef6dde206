#!/usr/bin/env python3
"""check_doc_paths.py DOC...: every `path` a document names in backticks exists in the
repository (paths of the shared folder, `spec/...` and `DESIGN.md`, and `<placeholder>` forms
are skipped). Prints `doc:line: missing path` for each and exits 1; 0 otherwise."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOKEN = re.compile(r"`([^`\s]+)`")


def looks_like_path(t):
    return "/" in t and "<" not in t and "::" not in t and not t.startswith(("spec/", "http")) \
        and re.fullmatch(r"[\w./-]+", t) is not None


def main():
    bad = 0
    for doc in sys.argv[1:]:
        for number, line in enumerate(pathlib.Path(doc).read_text().splitlines(), 1):
            for t in TOKEN.findall(line):
                if looks_like_path(t) and not (ROOT / t).exists():
                    print(f"{doc}:{number}: missing path {t}")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
