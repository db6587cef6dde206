"""Parsing: the two real 8-core BM1690 models against tpu-mlir's listings (NAME.ops.csv, an
independent oracle), the real sg2260-mm0 streams against the CLI's dump --json, and the named
fields modelling scripts read."""
import csv
import json
import os

import pytest

import tilefw
from conftest import BMODELS, MM0, TDB


def listing(name):
    want = {}
    with open(os.path.join(TDB, name + ".ops.csv"), encoding="utf-8") as f:
        for r in csv.DictReader(f):
            want.setdefault((int(r["core"]), r["engine"]), []).append(
                (int(r["index"]), int(r["byte_offset"]), int(r["bytes"]), r["op"], int(r["cmd_id_dep"])))
    return want


@pytest.mark.parametrize("name", BMODELS)
def test_bmodel_streams_match_the_listing(name):
    cores = tilefw.BinaryCommandParser.parse_bmodel(os.path.join(TDB, name + ".bmodel"))
    assert len(cores) == 8
    want = listing(name)
    got = {}
    for core, engines in enumerate(cores):
        assert sorted(engines) == ["gdma", "hau", "sdma", "tiu"]
        for engine in ("tiu", "gdma", "sdma"):
            got[(core, engine)] = [(c.cmd_id, c.offset, c.length, c.op, c.cmd_id_dep) for c in engines[engine]]
        assert all(c.op in ("hau.send_msg", "hau.wait_msg") and c.msg_cnt == 0x20 for c in engines["hau"])
    assert sorted(got) == sorted(want)
    for key, rows in want.items():
        assert len(got[key]) == len(rows), key
        assert got[key] == rows, key


def test_parse_is_callable_on_an_instance():
    parser = tilefw.BinaryCommandParser()
    a = parser.parse_tiu(os.path.join(MM0, "mm0.BD.0"))
    b = tilefw.BinaryCommandParser.parse_tiu(os.path.join(MM0, "mm0.BD.0"))
    assert [c.raw for c in a] == [c.raw for c in b] and len(a) == 17


@pytest.mark.parametrize("core", range(8))
def test_mm0_streams_equal_dump_json(cli, core):
    paths = [os.path.join(MM0, f"mm0.{e}.{core}") for e in ("BD", "GDMA", "SDMA")]
    rc, out, _ = cli("dump", "--json", *paths)
    assert rc == 0
    for obj, path in zip(json.loads(out), paths):
        cmds = tilefw.BinaryCommandParser.parse(path)
        assert len(cmds) == len(obj["commands"])
        for c, d in zip(cmds, obj["commands"]):
            assert (c.cmd_id, c.offset, c.length, c.class_name, c.cmd_id_dep) == (
                d["id"], d["offset"], d["length"], d["class"], d["dep"])
            nonzero = {k: hex(v) for k, v in c.fields.items() if v != 0}
            for key, value in d["fields"].items():
                assert nonzero[key] == value
                assert getattr(c, key) == int(value, 16)


def test_named_fields():
    tiu = tilefw.BinaryCommandParser.parse_tiu(os.path.join(MM0, "mm0.BD.0"))
    ar = tiu[2]  # `#3 @32 64B sAR eu=14 ... res0_c=0x22 res0_w=0x2 res0_addr=0x20000 opt_res0_prec=0x1`
    assert isinstance(ar, tilefw.TIUCommand)
    assert (ar.cmd_id, ar.tsk_typ, ar.eu_typ, ar.cmd_id_dep) == (3, 3, 14, 0x100003)
    assert (ar.res0_n, ar.res0_c, ar.res0_h, ar.res0_w, ar.res0_addr) == (1, 0x22, 1, 2, 0x20000)
    assert ar.precision == 1 and ar.opd0_addr == 0 and ar.op == "arith.cast"
    sys_cmd = tiu[0]
    assert sys_cmd.res0_n is None and sys_cmd.class_name == "SYS"
    with pytest.raises(AttributeError):
        sys_cmd.no_such_field
    dma = tilefw.BinaryCommandParser.parse_dma(os.path.join(MM0, "mm0.GDMA.0"))
    m = dma[3]  # `#4 matrix ... src_start_addr_l32=0x20000 src_start_addr_h13=0x1f00 dst_..._l32=0x80001000 _h13=0x1e69`
    assert isinstance(m, tilefw.DMACommand)
    assert m.cmd_type == 1 and m.src_addr == (0x1F00 << 32) | 0x20000 and m.dst_addr == (0x1E69 << 32) | 0x80001000
    assert m.src_shape == (1, 0x22, 1, 2) and m.dst_shape == (1, 1, 1, 0x44)
    assert m.src_stride == (0x20, 0x20, 0, 0) and m.data_format == 1
    assert m.direction == "lmem->l2"
    assert dma[0].src_shape is None and dma[0].direction is None  # sys: no tensor


def test_sdma_engine_from_name():
    cmds = tilefw.BinaryCommandParser.parse_dma(os.path.join(MM0, "mm0.SDMA.0"))
    assert len(cmds) == 13 and cmds[0].engine == "sdma"
