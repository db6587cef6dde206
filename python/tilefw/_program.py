"""InstructionGenerator (`tilefw gen`) and run (`tilefw run`) as Python calls: the options become
the CLI's arguments and go through the CLI's own parser and code in this process (so a bad value
is refused with the CLI's message); the results are read back from the files the CLI writes."""
import json
import os
import shutil
import tempfile

from ._api import BinaryCommandParser, TilefwError, _cli_or_raise

_PARALLELISM = {"tp": "--tp", "pp": "--pp", "ep": "--ep", "dp": "--dp", "chips": "--chips", "cores": "--cores",
                "microbatches": "--microbatches"}
_ENGINE_KEYS = ("tiu", "gdma", "sdma")


def _json_file(value, folder, name):
    """A path stays a path; a dict is written to `folder/name` (the CLI reads files)."""
    if isinstance(value, dict):
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(value, f)
        return path
    return os.fspath(value)


class GeneratedProgram:
    """What `generate` produced: `tiu_cmds, dma_cmds = program` unpacks to per-core lists
    (dma_cmds = GDMA), `sdma_cmds` the SDMA lists, `manifest` the manifest dict, `dir` the
    folder `tilefw run` reads, `summary` the CLI's line; write(dir) copies it elsewhere.
    A whole model (model=True) has its streams per step: its lists are empty, run it by
    its manifest."""

    def __init__(self, folder, summary, owner=None):
        self.dir = folder
        self.summary = summary
        self._owner = owner  # the TemporaryDirectory that holds it, if generate made one
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            self.manifest = json.load(f)
        self._streams = None

    @property
    def manifest_path(self):
        return os.path.join(self.dir, "manifest.json")

    def _load(self):
        if self._streams is None:
            self._streams = {e: [] for e in _ENGINE_KEYS}
            for core in self.manifest.get("cores", []):
                for e in _ENGINE_KEYS:
                    entry = core.get(e)
                    path = os.path.join(self.dir, entry["file"]) if entry and entry.get("file") else None
                    if path is None:
                        self._streams[e].append([])
                    elif e == "tiu":
                        self._streams[e].append(BinaryCommandParser.parse_tiu(path))
                    else:
                        self._streams[e].append(BinaryCommandParser.parse_dma(path, e))
        return self._streams

    @property
    def tiu_cmds(self):
        return self._load()["tiu"]

    @property
    def dma_cmds(self):
        return self._load()["gdma"]

    @property
    def sdma_cmds(self):
        return self._load()["sdma"]

    def __iter__(self):
        return iter((self.tiu_cmds, self.dma_cmds))

    def write(self, folder):
        """Copies the program (streams, manifest, data) to `folder`, which must not exist."""
        shutil.copytree(self.dir, os.fspath(folder))
        return os.fspath(folder)


class InstructionGenerator:
    """`InstructionGenerator(model_config, chip_config=None).generate(...)`: model_config is a
    Hugging Face config (a dict or a path to config.json); chip_config a chip what-if (dict or
    path; whole models only, as `tilefw gen --chip-config`)."""

    def __init__(self, model_config, chip_config=None):
        if not isinstance(model_config, (dict, str, os.PathLike)):
            raise TypeError("model_config: a dict or a path to config.json")
        self.model_config = model_config
        self.chip_config = chip_config

    def generate(self, batch_size=1, seq_len=None, phase="prefill", parallelism=None, kv_len=None, layer=0,
                 timing_only=False, model=False, seed=None, dtype=None, weights=None, out=None, extra_args=()):
        """One decoder layer (`tilefw gen --layer`, parallelism over the chip's cores: tp, ep,
        cores) or, with model=True, the whole model (`--model`, over chips: tp, pp, dp, ep,
        chips, microbatches). out: the folder to write (default: a temporary one owned by the
        result). Raises InputError for a bad config or option, CommandError when it cannot map."""
        work = tempfile.mkdtemp(prefix="tilefw-gen-")  # the config and chip files the CLI reads
        owner = None
        if out is None:
            owner = tempfile.TemporaryDirectory(prefix="tilefw-program-")
            out = os.path.join(owner.name, "program")
        args = ["gen", "--config", _json_file(self.model_config, work, "config.json"), "--out", os.fspath(out),
                "--phase", phase, "--batch", batch_size]
        if seq_len is not None:
            args += ["--seq", seq_len]
        if kv_len is not None:
            args += ["--kv-len", kv_len]
        if model:
            args += ["--model"]
        else:
            args += ["--layer", layer]
        for key, value in (parallelism or {}).items():
            if key not in _PARALLELISM:
                raise ValueError(f"parallelism: unknown key {key!r} (known: {', '.join(_PARALLELISM)})")
            args += [_PARALLELISM[key], value]
        if self.chip_config is not None:
            args += ["--chip-config", _json_file(self.chip_config, work, "chip.json")]
        if timing_only:
            args += ["--timing-only"]
        if seed is not None:
            args += ["--seed", seed]
        if dtype is not None:
            args += ["--dtype", dtype]
        if weights is not None:
            args += ["--weights", os.fspath(weights)]
        try:
            stdout, _ = _cli_or_raise(*args, *extra_args)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return GeneratedProgram(os.fspath(out), stdout.strip(), owner)


class RunResult:
    """`report`: the dict `tilefw run --report` writes; `outputs`: name -> numpy array of the
    output's shape and dtype (bf16 widened to float32 exactly; none in a timing-only run);
    `stdout` / `stderr`: what the CLI printed (hazard reports go to stderr)."""

    def __init__(self, report, outputs, stdout, stderr):
        self.report, self.outputs, self.stdout, self.stderr = report, outputs, stdout, stderr

    def __repr__(self):
        return f"<RunResult cycles_total={self.report.get('cycles_total')} outputs={sorted(self.outputs)}>"


_NUMPY_DTYPES = {"f32": "float32", "f16": "float16", "i8": "int8", "u8": "uint8", "i16": "int16",
                 "u16": "uint16", "i32": "int32", "u32": "uint32", "f64": "float64", "i64": "int64"}


def _array(path, dtype, shape):
    import numpy as np
    if dtype == "bf16":  # numpy has no bfloat16: the top half of a float32, widened exactly
        bits = np.fromfile(path, dtype="<u2").astype(np.uint32) << 16
        data = bits.view(np.float32)
    elif dtype in _NUMPY_DTYPES:
        data = np.fromfile(path, dtype="<" + np.dtype(_NUMPY_DTYPES[dtype]).str[1:])
    else:
        return np.fromfile(path, dtype=np.uint8)
    return data.reshape(shape) if shape and data.size == int(np.prod(shape)) else data


def _outputs(manifest_path, folder):
    try:
        with open(manifest_path, encoding="utf-8") as f:
            declared = json.load(f).get("outputs", [])
    except (OSError, ValueError):
        declared = []
    out = {}
    for o in declared:
        path = os.path.join(folder, o["name"] + ".dat")
        if os.path.exists(path):
            out[o["name"]] = _array(path, o.get("dtype"), o.get("shape"))
    known = set(out)
    for name in sorted(os.listdir(folder)):  # a .bmodel's outputs: named by the run
        if name.endswith(".dat") and name[:-4] not in known:
            out[name[:-4]] = _array(os.path.join(folder, name), None, None)
    return out


def run(target, timing_only=False, strict=False, out=None, order=None, seed=None, timing_model=None, routing=None,
        trace=None, inputs=None, extra_args=()):
    """`tilefw run` on a GeneratedProgram, a manifest.json path or a .bmodel path. inputs: for a
    .bmodel, NAME -> FILE. out: where the outputs' .dat files go (default: a temporary folder,
    read into `outputs` and removed). Raises by the failure's Status class (CommandError for a
    fault or deadlock, ...), InputError for an unreadable model or bad option."""
    if isinstance(target, GeneratedProgram):
        manifest = target.manifest_path
        args = ["run", "--manifest", manifest]
    else:
        target = os.fspath(target)
        manifest = None if target.endswith(".bmodel") else target
        args = ["run", "--bmodel" if manifest is None else "--manifest", target]
    work = tempfile.mkdtemp(prefix="tilefw-run-")
    try:
        folder = os.fspath(out) if out is not None else os.path.join(work, "out")
        report_path = os.path.join(work, "report.json")
        args += ["--out", folder, "--report", report_path]
        for flag, on in (("--timing-only", timing_only), ("--strict", strict)):
            if on:
                args.append(flag)
        for flag, value in (("--order", order), ("--seed", seed), ("--timing-model", timing_model),
                            ("--routing", routing), ("--trace", trace)):
            if value is not None:
                args += [flag, value]
        for name, path in (inputs or {}).items():
            args += ["--input", f"{name}={os.fspath(path)}"]
        try:
            stdout, stderr = _cli_or_raise(*args, *extra_args)
        except TilefwError as e:
            e.report = _maybe_json(report_path)  # --strict keeps its report
            raise
        report = _maybe_json(report_path) or {}
        outputs = {} if timing_only or not os.path.isdir(folder) else _outputs(manifest or "", folder)
        return RunResult(report, outputs, stdout, stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _maybe_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
