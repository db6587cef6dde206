"""Shared fixtures: where the CLI binary, the source tree and the real data are (from the
environment meson's test() sets), and a runner of the CLI as a separate process (the oracle
the module's messages are compared with)."""
import os
import subprocess

import pytest

SOURCE = os.environ.get("TILEFW_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
EXE = os.environ.get("TILEFW_EXE", "")
TDB = os.path.join(SOURCE, "test", "data", "sg2260-tdb")
MM0 = os.path.join(SOURCE, "test", "data", "sg2260-mm0")
CONFIGS = os.path.join(SOURCE, "test", "gen", "configs")
MODELS = os.path.join(SOURCE, "test", "data", "models")
BMODELS = ["resnet50_v2_bm1690_f16_core8", "yolov5s_bm1690_f16_core8"]


def run_cli(*args, cwd=None):
    """The tilefw executable as a separate process: (exit code, stdout, stderr)."""
    if not EXE:
        pytest.skip("TILEFW_EXE is not set")
    p = subprocess.run([EXE] + [str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=600)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def cli():
    return run_cli
