#!/usr/bin/env python3
"""run_tap.py PYTEST_ARGS...: runs pytest and prints its cases as TAP on stdout, one line per
test case, so meson (protocol 'tap') records each case in its junit log and the CI's closing
line counts them one by one (scripts/meson_summary.py). pytest's own report goes to stderr."""
import os
import sys

import pytest


class TapReporter:
    def __init__(self, out):
        self.out = out
        self.n = 0
        self.failed_setup = set()

    def emit(self, line):
        self.out.write(line + "\n")
        self.out.flush()

    def pytest_collection_finish(self, session):
        self.emit(f"1..{len(session.items)}")

    def pytest_collectreport(self, report):
        if report.failed:
            self.emit(f"Bail out! collecting {report.nodeid} failed")

    def pytest_runtest_logreport(self, report):
        name = report.nodeid.replace("#", "")
        if report.when == "setup" and not report.passed:
            self.failed_setup.add(report.nodeid)
            self.n += 1
            if report.skipped:
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
                self.emit(f"ok {self.n} - {name} # SKIP {reason}")
            else:
                self.emit(f"not ok {self.n} - {name} (setup)")
        elif report.when == "call" and report.nodeid not in self.failed_setup:
            self.n += 1
            if report.passed:
                self.emit(f"ok {self.n} - {name}")
            elif report.skipped:
                self.emit(f"ok {self.n} - {name} # SKIP")
            else:
                self.emit(f"not ok {self.n} - {name}")


def main():
    tap = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # pytest's own output (and the tests' prints) to stderr: stdout stays TAP
    rc = pytest.main(["-p", "no:cacheprovider", "-q"] + sys.argv[1:], plugins=[TapReporter(tap)])
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
