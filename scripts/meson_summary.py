#!/usr/bin/env python3
"""meson_summary.py [--extra-failed N] testlog.json...

Counts test results over meson's logs and ends with exactly one line `N passed, M failed`;
exits 1 when M > 0. Counting is per test case where meson's logs have them: GoogleTest
programs (protocol 'gtest') and the Cortex-M runner (protocol 'tap') leave one <testcase> per
case in the testlog.junit.xml beside each testlog.json, so a program with 300 cases counts 300.
Other tests, and programs whose cases are not in the junit log (crashed before writing them),
count once by meson's verdict: OK and EXPECTEDFAIL pass; FAIL, UNEXPECTEDPASS, TIMEOUT and
ERROR fail. A program whose cases all passed but which meson failed (a leak report at exit, a
non-zero exit) adds one failure, so nothing meson calls a failure is lost. Skips are printed on
an earlier line. --extra-failed counts stages that broke before their tests could run."""
import json
import os
import sys
import xml.etree.ElementTree as ET

PASS = {"OK", "EXPECTEDFAIL"}
SKIP = {"SKIP"}


class Counts:
    def __init__(self) -> None:
        self.passed = self.failed = self.skipped = 0

    def add(self, other: "Counts") -> None:
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped


def junit_cases(junit_path: str, names: set) -> dict:
    """Maps a meson test name to its (passed, failed, skipped) case counts from the junit log.

    meson names a gtest program's suites `<project>.<test name>.<gtest suite>` and a TAP
    program's suite `<project>.<test name>`; single-result tests go to a suite named after the
    project and are not cases."""
    if not os.path.exists(junit_path):
        return {}
    by_prefix = {f"{n.split(':', 1)[0]}.{n}": n for n in names}
    cases = {}
    for suite in ET.parse(junit_path).getroot().iter("testsuite"):
        sname = suite.get("name", "")
        name = by_prefix.get(sname) or by_prefix.get(sname.rsplit(".", 1)[0])
        if name is None:
            continue
        c = cases.setdefault(name, Counts())
        for case in suite.iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                c.failed += 1
            elif case.find("skipped") is not None or case.get("status") == "notrun":
                c.skipped += 1
            else:
                c.passed += 1
    return cases


def count_log(testlog: str) -> Counts:
    with open(testlog, encoding="utf-8") as f:
        tests = [json.loads(line) for line in f if line.strip()]
    names = {t["name"] for t in tests}
    cases = junit_cases(os.path.join(os.path.dirname(testlog), "testlog.junit.xml"), names)
    total = Counts()
    for t in tests:
        result = t["result"]
        c = cases.get(t["name"])
        # A should_fail test is one verdict: its cases failing is what it is for.
        if c is None or c.passed + c.failed + c.skipped == 0 or result in ("EXPECTEDFAIL", "UNEXPECTEDPASS"):
            c = Counts()
            if result in PASS:
                c.passed = 1
            elif result in SKIP:
                c.skipped = 1
            else:
                c.failed = 1
        elif result not in PASS | SKIP and c.failed == 0:
            c.failed = 1  # every case passed, yet the program failed (exit code, leak, timeout)
        total.add(c)
    return total


def main() -> int:
    args = sys.argv[1:]
    extra = 0
    if args[:1] == ["--extra-failed"]:
        extra, args = int(args[1]), args[2:]
    grand = Counts()
    for path in args:
        c = count_log(path)
        build = os.path.dirname(os.path.dirname(os.path.abspath(path)))
        print(f"{os.path.basename(build)}: {c.passed} passed, {c.failed} failed, {c.skipped} skipped")
        grand.add(c)
    grand.failed += extra
    if extra:
        print(f"{extra} stage(s) broke before their tests ran (counted as failures)")
    print(f"skipped: {grand.skipped}")
    print(f"{grand.passed} passed, {grand.failed} failed")
    return 1 if grand.failed else 0


if __name__ == "__main__":
    sys.exit(main())
