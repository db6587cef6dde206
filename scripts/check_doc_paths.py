#!/usr/bin/env python3
"""check_doc_paths.py [--sources] [DOC...]: the project's documents and sources name only what
is in the repository.

DOC...      every `path` a document names in backticks exists in the repository (`<placeholder>`
            forms and URLs are skipped).
--sources-in FILE...  the source checks on the given files only (the must-fail fixture).
--sources   every tracked source, build and script file and every document (README.md, docs/,
            bench/RESULTS.md): each repository path it names (inc/..., src/..., test/..., ...)
            exists, each source file name it names (foo.hpp, bar.py) is a file of the repository,
            and nothing cites a file outside it (the shared spec folder, DESIGN.md, the seeds) or
            a tracker word (an issue letter or number, a numbered decision) instead of the rule.
Prints `file:line: ...` for each and exits 1; 0 otherwise."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOKEN = re.compile(r"`([^`\s]+)`")
TOP = r"(?:inc|src|port|tools|test|docs|scripts|bench|fuzz|examples|cross|linker|\.ci)"
REPO_PATH = re.compile(r"(?<![\w./$}-])(" + TOP + r"/[\w./-]*\w)")
FILE_NAME = re.compile(r"(?<![\w/.-])([A-Za-z_][\w-]+\.(?:hpp|cpp|py|sh|md|ld))\b")
OUTSIDE = [
    (re.compile(r"(?<![\w/])spec/[\w-]+\.md|\bspec/\b"), "a file of the shared spec folder"),
    (re.compile(r"\bDESIGN\.md\b"), "DESIGN.md of the shared folder"),
    (re.compile(r"\bseeds?[ /]?0\d\d\b|\bseeds/"), "the user's seed documents"),
    (re.compile(r"\.\./shared\b|/work/shared"), "the shared folder"),
]
TRACKER = [
    re.compile(r"\b[Ii]ssues? (?:[A-Z]|\d+)\b(?!-)"),
    # A bracketed capital letter after a word or a closing bracket is code (an array bound or
    # subscript such as `T (&a)[N]` or `Ops[I]`), not a tracker word.
    re.compile(r"(?<![\w)\]])\[[A-Z]\](?!\()"),
    re.compile(r"\b[Dd]ecisions? \d+\b"),
]
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".c", ".py", ".sh", ".txt", ".build", ".ld", ".ini", ".md"}
SKIP_PREFIXES = ("test/data/", "test/conformance/a2a3/", "test/gen/configs/", "test/layers/violation/")
# File names a source may name that are not files of this repository: other projects' files
# and the names of files a tool writes or reads at run time.
FOREIGN_NAMES = {"modeling_llama.py", "modeling_deepseek.py", "modeling_qwen2.py", "modeling_qwen3.py",
                 "modeling_qwen3_moe.py", "modeling_mixtral.py", "modeling_gemma.py", "modeling_gemma2.py",
                 "modeling_gemma3.py", "modeling_phi3.py", "modeling_mistral.py", "configuration_deepseek.py",
                 "mm0_data.cpp", "OUT.cpp"}


def looks_like_path(t):
    return "/" in t and "<" not in t and "::" not in t and not t.startswith("http") \
        and re.fullmatch(r"[\w./-]+", t) is not None


def check_doc(doc):
    bad = 0
    for number, line in enumerate(pathlib.Path(doc).read_text().splitlines(), 1):
        for t in TOKEN.findall(line):
            if looks_like_path(t) and not (ROOT / t).exists():
                print(f"{doc}:{number}: missing path {t}")
                bad += 1
    return bad


def tracked_files():
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if not f.startswith(SKIP_PREFIXES)
            and (pathlib.Path(f).suffix in SOURCE_SUFFIXES or pathlib.Path(f).name in ("meson.build", "run"))]


def check_sources(files=None):
    files = tracked_files() if files is None else files
    all_files = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                               check=True).stdout.splitlines()
    names = {pathlib.Path(f).name for f in all_files}
    me = pathlib.Path(__file__).resolve().relative_to(ROOT).as_posix()
    bad = 0
    for f in files:
        if f == me or not (ROOT / f).is_file():
            continue
        is_doc = f.endswith(".md")
        for number, line in enumerate((ROOT / f).read_text(errors="replace").splitlines(), 1):
            if re.match(r"\s*#\s*include\s*<", line) or "http" in line:
                continue
            # A document's own paths are its backticked ones (checked by check_doc); its names of
            # other projects' files are sources it cites.
            for p in ([] if is_doc else REPO_PATH.findall(line)):
                p = p.rstrip(".")
                # A stem names its files (tools/gen_config.{hpp,cpp}, tools/cmd_*.cpp).
                if not (ROOT / p).exists() and not any(g.startswith(p) for g in all_files):
                    print(f"{f}:{number}: names {p}, which is not in the repository")
                    bad += 1
            for n in ([] if is_doc else FILE_NAME.findall(line)):
                if n not in names and n not in FOREIGN_NAMES:
                    print(f"{f}:{number}: names the file {n}, which is not in the repository")
                    bad += 1
            for rx, what in OUTSIDE:
                if rx.search(line):
                    print(f"{f}:{number}: cites {what}; the facts belong in docs/")
                    bad += 1
            for rx in TRACKER:
                m = rx.search(line)
                if m:
                    print(f"{f}:{number}: tracker word '{m.group(0)}': name the rule or feature itself")
                    bad += 1
    return bad


def main():
    args = sys.argv[1:]
    bad = 0
    if args and args[0] == "--sources":
        bad += check_sources()
        args = args[1:]
    elif args and args[0] == "--sources-in":  # the given files, as --sources checks them
        return 1 if check_sources(args[1:]) else 0
    docs = args
    if not docs and bad is not None and sys.argv[1:2] == ["--sources"]:
        docs = [f for f in tracked_files() if f.endswith(".md")]
    for doc in docs:
        bad += check_doc(ROOT / doc)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
