"""Writing (byte-identical round trips) and validation: the module's results and exceptions
carry the CLI's lines and messages, compared with the tilefw executable run as a process."""
import os
import shutil

import pytest

import tilefw
from conftest import BMODELS, MM0, TDB


@pytest.mark.parametrize("name", ["mm0.BD.0", "mm0.GDMA.0", "mm0.SDMA.3", "mm0.GDMA.7"])
def test_round_trip_mm0(tmp_path, name):
    src = os.path.join(MM0, name)
    cmds = tilefw.BinaryCommandParser.parse(src)
    dst = tmp_path / name
    (tilefw.BinaryCommandWriter.write_tiu if ".BD" in name else tilefw.BinaryCommandWriter.write_dma)(cmds, dst)
    assert dst.read_bytes() == open(src, "rb").read()


@pytest.mark.parametrize("name", BMODELS)
def test_round_trip_bmodel_streams(tmp_path, name):
    cores = tilefw.BinaryCommandParser.parse_bmodel(os.path.join(TDB, name + ".bmodel"))
    for engine, write in (("tiu", tilefw.BinaryCommandWriter.write_tiu), ("gdma", tilefw.BinaryCommandWriter.write_dma)):
        path = tmp_path / f"core0.{engine}"
        write(cores[0][engine], path)
        again = tilefw.BinaryCommandParser.parse(path, engine)
        assert [c.raw for c in again] == [c.raw for c in cores[0][engine]]


def test_writer_refuses_a_symlink_and_mixed_commands(tmp_path):
    cmds = tilefw.BinaryCommandParser.parse_tiu(os.path.join(MM0, "mm0.BD.0"))
    link = tmp_path / "link.BD"
    os.symlink(tmp_path / "target", link)
    with pytest.raises(tilefw.InputError):
        tilefw.BinaryCommandWriter.write_tiu(cmds, link)
    assert not (tmp_path / "target").exists()
    with pytest.raises(TypeError):
        tilefw.BinaryCommandWriter.write_dma(cmds, tmp_path / "x.GDMA")


def test_validate_real_streams_equal_cli(cli):
    paths = [os.path.join(MM0, f"mm0.{e}.{c}") for c in range(8) for e in ("BD", "GDMA", "SDMA")]
    results = tilefw.validate(paths)
    rc, out, _ = cli("validate", *paths)
    assert rc == 0 and [r.line for r in results] == out.splitlines()
    assert all(r.ok for r in results) and results[0].commands == 17


@pytest.mark.parametrize("name", BMODELS)
def test_validate_bmodel(cli, name):
    path = os.path.join(TDB, name + ".bmodel")
    results = tilefw.validate(path)
    rc, out, _ = cli("validate", path)
    assert [r.line for r in results] == out.splitlines() and len(results) == 32 and all(r.ok for r in results)


def corrupt(tmp_path):
    """Bad inputs of every class the CLI tells apart, each as (file, engine)."""
    raw = bytearray(open(os.path.join(MM0, "mm0.BD.0"), "rb").read())
    cases = {}
    p = tmp_path / "cut.BD.0"
    p.write_bytes(bytes(raw[:40]))  # a command cut short: cmd_truncated
    cases["truncated"] = p
    p = tmp_path / "noend.BD.0"
    p.write_bytes(bytes(raw[:96]))  # no end command: cmd_missing_end
    cases["missing_end"] = p
    bad = bytearray(raw)
    bad[32 + 5] ^= 0xFF  # inside the sAR command: a field value the class does not define
    p = tmp_path / "field.BD.0"
    p.write_bytes(bytes(bad))
    cases["field"] = p
    return cases


def test_invalid_streams_raise_with_the_cli_line(cli, tmp_path):
    for kind, path in corrupt(tmp_path).items():
        rc, out, _ = cli("validate", path)
        assert rc == 1, kind
        results = tilefw.validate(path)
        assert [r.line for r in results] == out.splitlines()
        bad = results[0]
        assert not bad.ok and bad.status in tilefw.STATUS_CLASS
        with pytest.raises(tilefw.TilefwError) as e:
            tilefw.validate(path, raise_on_error=True)
        assert str(e.value) == out.strip() and e.value.status == bad.status
        assert isinstance(e.value, tilefw.ERROR_BY_CLASS[tilefw.status_class(bad.status)])
        assert e.value.offset == bad.offset and e.value.command_id == bad.command_id
        # parse raises the same Status with dump's stderr line
        rc, _, err = cli("dump", path)
        with pytest.raises(tilefw.TilefwError) as p:
            tilefw.BinaryCommandParser.parse_tiu(path)
        assert str(p.value) == err.strip() and p.value.status == bad.status and rc == 1


def test_unreadable_inputs_raise_input_error(cli, tmp_path):
    for path in (tmp_path / "missing.BD.0", tmp_path):
        rc, _, err = cli("dump", path)
        with pytest.raises(tilefw.InputError) as e:
            tilefw.BinaryCommandParser.parse_tiu(path)
        assert rc == 2 and str(e.value) == err.strip()
        rc, out, _ = cli("validate", path)
        results = tilefw.validate(path)
        assert rc == 2 and [r.line for r in results] == out.splitlines()
        with pytest.raises(tilefw.InputError):
            tilefw.validate(path, raise_on_error=True)
    plain = tmp_path / "noname"
    shutil.copy(os.path.join(MM0, "mm0.BD.0"), plain)
    rc, _, err = cli("dump", plain)
    with pytest.raises(tilefw.InputError) as e:
        tilefw.BinaryCommandParser.parse(plain)
    assert rc == 2 and str(e.value) == err.strip()


def test_corrupt_bmodel(cli, tmp_path):
    ref = open(os.path.join(TDB, BMODELS[1] + ".bmodel"), "rb").read()
    bad = tmp_path / "cut.bmodel"
    bad.write_bytes(ref[:-100])
    rc, _, err = cli("dump", bad)
    with pytest.raises(tilefw.InputError) as e:
        tilefw.BinaryCommandParser.parse_bmodel(bad)
    assert rc == 2 and str(e.value) == err.strip() and "header.binary_size" in str(e.value)
    rc, out, _ = cli("validate", bad)
    assert [r.line for r in tilefw.validate(bad)] == out.splitlines()


def test_bad_options_carry_the_cli_message(cli):
    rc, _, err = cli("validate", "--engine", "npu", "x")
    with pytest.raises(tilefw.InputError) as e:
        tilefw.validate("x", engine="npu")
    assert rc == 2 and str(e.value) == err.strip()


def test_validate_a_manifest_equals_cli(cli):
    manifest = os.path.join(MM0, "manifest.json")
    rc, out, _ = cli("validate", "--manifest", manifest)
    results = tilefw.validate([], manifest=manifest)
    assert rc == 0 and [r.line for r in results] == out.splitlines() and len(results) == 24


def test_repeated_command_lines_start_afresh(cli):
    """Each subcommand resets its options when parsed: an option of one call never leaks into
    the next call in the same process."""
    rc1, one, _ = tilefw.cli("status", "misaligned")
    rc2, every, _ = tilefw.cli("status")
    assert rc1 == rc2 == 0 and len(one.splitlines()) == 1 and every == cli("status")[1]
    mm0 = os.path.join(MM0, "mm0.BD.0")
    rc, json_out, _ = tilefw.cli("dump", "--json", mm0)
    rc2, text_out, _ = tilefw.cli("dump", mm0)
    assert rc == rc2 == 0 and json_out.startswith("[") and text_out == cli("dump", mm0)[1]
