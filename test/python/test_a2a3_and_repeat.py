"""The a2a3 descriptors (the core's validators, PTO's ValidateBinIntrinsicDesc /
IsBinIntrinsicDescValid) and repeated calls: no crash, no growth of the process."""
import os
import resource

import pytest

import tilefw
from conftest import MM0, TDB, BMODELS


def test_default_binary_issue_is_valid():
    d = tilefw.BinIntrinsicDesc()
    d.op, d.dst, d.src0, d.src1 = "vadd", 0, 256, 512
    report = tilefw.ValidateBinIntrinsicDesc(d, "f16")
    assert report["status"] == "ok" and tilefw.IsBinIntrinsicDescValid(d, "f16")
    assert tilefw.check_descriptor(report) is report


def test_bad_binary_issues_raise_by_class():
    d = tilefw.BinIntrinsicDesc()
    d.dst_block_stride = 256  # an 8-bit hardware field
    report = tilefw.validate_bin_intrinsic_desc(d, "f32")
    assert report["status"].startswith("desc_") and report["field"] == "dst_block_stride"
    assert report["status_class"] == "invalid_descriptor" and not tilefw.is_bin_intrinsic_desc_valid(d, "f32")
    with pytest.raises(tilefw.InvalidDescriptorError) as e:
        tilefw.check_descriptor(report)
    assert str(e.value) == report["message"] and "dst_block_stride" in str(e.value)
    d = tilefw.BinIntrinsicDesc()
    d.src0 = 2  # not 32-byte aligned
    report = tilefw.ValidateBinIntrinsicDesc(d)
    assert report["status_class"] == "misaligned"
    with pytest.raises(tilefw.MisalignedError):
        tilefw.check_descriptor(report)
    d = tilefw.BinIntrinsicDesc()
    d.repeat = 255
    d.dst = 200 * 1024
    with pytest.raises(tilefw.OutOfBoundsError):
        tilefw.check_descriptor(tilefw.ValidateBinIntrinsicDesc(d))
    with pytest.raises(ValueError):
        tilefw.ValidateBinIntrinsicDesc(tilefw.BinIntrinsicDesc(), "f8")
    with pytest.raises(ValueError):
        d.op = "vfma"


def test_mask_and_unary():
    d = tilefw.BinIntrinsicDesc()
    assert tilefw.ValidateBinIntrinsicDesc(d, "f16", mask=0)["nop"]
    assert tilefw.ValidateBinIntrinsicDesc(d, "f16", mask=(1 << 128) - 1)["status"] == "ok"
    u = tilefw.UnaryDesc()
    u.op = "vexp"
    assert tilefw.validate_unary_desc(u, "f32")["status"] == "ok"


def rss_kib():
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_repeated_calls_do_not_grow(tmp_path):
    bmodel = os.path.join(TDB, BMODELS[1] + ".bmodel")
    bad = tmp_path / "cut.BD.0"
    bad.write_bytes(open(os.path.join(MM0, "mm0.BD.0"), "rb").read()[:40])

    def round_of_calls():
        tilefw.BinaryCommandParser.parse_bmodel(bmodel)
        tilefw.validate([os.path.join(MM0, "mm0.BD.0"), os.path.join(MM0, "mm0.GDMA.0")])
        for call in (lambda: tilefw.BinaryCommandParser.parse_tiu(bad), lambda: tilefw.validate(bad, raise_on_error=True),
                     lambda: tilefw.BinaryCommandParser.parse_tiu(tmp_path / "missing")):
            with pytest.raises(tilefw.TilefwError):
                call()
        tilefw.run(os.path.join(MM0, "manifest.json"), timing_only=True)

    for _ in range(3):
        round_of_calls()  # warm up: caches and the allocator settle
    before = rss_kib()
    for _ in range(20):
        round_of_calls()
    grown = rss_kib() - before
    assert grown < 16 * 1024, f"{grown} KiB more after 20 rounds"


def test_stub_names_every_public_name():
    import ast
    stub = os.path.join(os.path.dirname(tilefw.__file__), "__init__.pyi")
    with open(stub, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    named = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            named.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            named.add(node.target.id)
    assert set(tilefw.__all__) <= named, sorted(set(tilefw.__all__) - named)
    for name in tilefw.__all__:
        obj = getattr(tilefw, name)
        if callable(obj):
            assert obj.__doc__, name
