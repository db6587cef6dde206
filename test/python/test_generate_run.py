"""Generate and run a tiny layer from Python, compared byte for byte with the CLI (a separate
process) doing the same; the `tiu_cmds, dma_cmds = program` unpacking; the CLI's messages for bad configs and options."""
import filecmp
import json
import os

import pytest

import tilefw
from conftest import CONFIGS, MM0

np = pytest.importorskip("numpy")

CONFIG = os.path.join(CONFIGS, "llama_gqa.json")
VOLATILE = {"wall_seconds", "sim_commands_per_second"}  # the host's speed, not the run's result


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    assert not cmp.left_only and not cmp.right_only and not cmp.funny_files
    match, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    assert not mismatch and not errors, mismatch
    return match


def test_generate_equals_cli_and_unpacks(cli, tmp_path):
    program = tilefw.InstructionGenerator(CONFIG).generate(batch_size=1, seq_len=16, phase="prefill",
                                                           parallelism={"tp": 4}, layer=0)
    rc, out, _ = cli("gen", "--config", CONFIG, "--out", tmp_path / "cli", "--batch", 1, "--seq", 16,
                     "--tp", 4, "--layer", 0, "--phase", "prefill")
    assert rc == 0
    assert program.summary == out.strip().replace(str(tmp_path / "cli"), program.dir)
    assert len(same_tree(program.dir, tmp_path / "cli")) > 24
    tiu_cmds, dma_cmds = program
    assert len(tiu_cmds) == len(dma_cmds) == len(program.sdma_cmds) == 8
    counts = program.manifest["report"]["commands"]
    assert [len(t) for t in tiu_cmds] == [c["tiu"] for c in counts]
    assert [len(d) for d in dma_cmds] == [c["gdma"] for c in counts]
    assert program.manifest["report"]["tp"] == 4
    copy = program.write(tmp_path / "copy")
    same_tree(copy, program.dir)


def test_generate_from_dict_and_run_equals_cli(cli, tmp_path):
    with open(CONFIG, encoding="utf-8") as f:
        config = json.load(f)
    program = tilefw.InstructionGenerator(config).generate(batch_size=2, seq_len=8, parallelism={"tp": 2}, seed=3)
    result = tilefw.run(program)
    rc, _, _ = cli("run", "--manifest", program.manifest_path, "--out", tmp_path / "out",
                   "--report", tmp_path / "report.json")
    assert rc == 0
    with open(tmp_path / "report.json", encoding="utf-8") as f:
        want = json.load(f)
    assert {k: v for k, v in result.report.items() if k not in VOLATILE} == \
        {k: v for k, v in want.items() if k not in VOLATILE}
    outputs = program.manifest["outputs"]
    assert sorted(result.outputs) == sorted(o["name"] for o in outputs)
    for o in outputs:
        arr = result.outputs[o["name"]]
        assert list(arr.shape) == o["shape"]
        raw = (tmp_path / "out" / (o["name"] + ".dat")).read_bytes()
        if o["dtype"] == "bf16":
            assert arr.dtype == np.float32
            assert (arr.view(np.uint32) >> 16).astype("<u2").tobytes() == raw
        else:
            assert arr.tobytes() == raw
    assert np.isfinite(result.outputs["hidden_states_out"]).all()


def test_timing_only_decode_report():
    program = tilefw.InstructionGenerator(CONFIG).generate(batch_size=4, phase="decode", kv_len=64,
                                                           timing_only=True)
    result = tilefw.run(program, timing_only=True)
    assert result.outputs == {}
    assert result.report["seconds"] >= result.report["bound_seconds"] > 0
    assert 0 < result.report["mfu"] <= 1


def test_run_real_manifest_outputs():
    result = tilefw.run(os.path.join(MM0, "manifest.json"))
    ref = np.fromfile(os.path.join(MM0, "output_ref_data.dat"), dtype="<f4")
    out = result.outputs["4_f32"]
    assert out.shape == (32, 34) and out.dtype == np.float32
    assert np.allclose(out.reshape(-1), ref[: out.size], rtol=1e-2, atol=1e-2)


def test_bad_config_and_options_carry_the_cli_message(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"model_type": "llama"}')
    cases = [
        (dict(model_config=str(bad)), {}, ["--config", bad]),
        (dict(model_config=CONFIG), dict(parallelism={"tp": 0}), ["--config", CONFIG, "--tp", 0]),
        (dict(model_config=CONFIG), dict(phase="train"), ["--config", CONFIG, "--phase", "train"]),
        (dict(model_config=CONFIG), dict(batch_size=-1), ["--config", CONFIG, "--batch", -1]),
        (dict(model_config=CONFIG), dict(seq_len=3, phase="decode", kv_len=0), ["--config", CONFIG, "--seq", 3,
                                                                               "--phase", "decode", "--kv-len", 0]),
    ]
    for ctor, kw, args in cases:
        rc, _, err = cli("gen", *args, "--out", tmp_path / "o")
        assert rc == 2, (args, err)
        with pytest.raises(tilefw.InputError) as e:
            tilefw.InstructionGenerator(**ctor).generate(**kw)
        assert str(e.value) == err.strip(), args
    assert not (tmp_path / "o").exists()
    with pytest.raises(ValueError):
        tilefw.InstructionGenerator(CONFIG).generate(parallelism={"xp": 2})


def test_run_failures_carry_the_cli_message(cli, tmp_path):
    missing = tmp_path / "none.json"
    rc, _, err = cli("run", "--manifest", missing, "--out", tmp_path / "o", "--report", tmp_path / "r.json")
    with pytest.raises(tilefw.InputError) as e:
        tilefw.run(missing)
    assert rc == 2 and str(e.value) == err.strip()
    broken = tmp_path / "m.json"
    broken.write_text("{ not json")
    rc, _, err = cli("run", "--manifest", broken, "--out", tmp_path / "o", "--report", tmp_path / "r.json")
    with pytest.raises(tilefw.InputError) as e:
        tilefw.run(broken)
    assert rc == 2 and str(e.value) == err.strip()


def test_whole_model_equals_cli(cli, tmp_path):
    config = os.path.join(CONFIGS, "llama_tiny3.json")
    program = tilefw.InstructionGenerator(config).generate(model=True, seq_len=8)
    rc, _, _ = cli("gen", "--config", config, "--out", tmp_path / "cli", "--model", "--seq", 8, "--batch", 1,
                   "--phase", "prefill")
    assert rc == 0
    same_tree(program.dir, tmp_path / "cli")
    assert program.manifest["model"] and program.tiu_cmds == []
    result = tilefw.run(program)
    rc, _, _ = cli("run", "--manifest", tmp_path / "cli" / "manifest.json", "--out", tmp_path / "out",
                   "--report", tmp_path / "r.json")
    assert rc == 0
    for name in ("logits", "next_token"):
        assert result.outputs[name].tobytes() == (tmp_path / "out" / (name + ".dat")).read_bytes()
    assert result.outputs["logits"].shape == (1, 8, 200)


def test_bmodel_timing_only_run_equals_cli(cli, tmp_path):
    from conftest import TDB
    path = os.path.join(TDB, "yolov5s_bm1690_f16_core8.bmodel")
    result = tilefw.run(path, timing_only=True)
    rc, _, _ = cli("run", "--bmodel", path, "--timing-only", "--out", tmp_path, "--report", tmp_path / "r.json")
    with open(tmp_path / "r.json", encoding="utf-8") as f:
        want = json.load(f)
    assert rc == 0 and result.report["cycles_total"] == want["cycles_total"] > 0 and result.outputs == {}
