"""The sweep example of docs/python.md runs on a tiny config and writes its PNG plot; the
docs show the example's own code."""
import os
import subprocess
import sys

import pytest

from conftest import CONFIGS, SOURCE

EXAMPLE = os.path.join(SOURCE, "python", "examples", "sweep.py")


def test_sweep_example_runs_and_plots(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "sweep.png"
    p = subprocess.run([sys.executable, EXAMPLE, os.path.join(CONFIGS, "llama_gqa.json"), png],
                       capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    rows = [eval(line) for line in p.stdout.splitlines()]  # noqa: S307 - the example prints dicts
    assert len(rows) == 12 and all(r["seconds"] >= r["bound_seconds"] > 0 for r in rows)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_docs_show_the_example_code():
    with open(EXAMPLE, encoding="utf-8") as f:
        example = f.read()
    with open(os.path.join(SOURCE, "docs", "python.md"), encoding="utf-8") as f:
        doc = f.read()
    block = doc.split("```python\n", 1)[1].split("```", 1)[0]
    assert block.strip() and block.strip() in example
