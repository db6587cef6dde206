"""The Python classes over the C++ library (_tilefw): parsing, validation, generation, writing and
running, with the CLI's own code and messages. Every failure raises a TilefwError subclass whose
message is the line the CLI prints; nothing here re-implements a check of the library."""
import json
import os
import re
import shutil
import tempfile

from . import _tilefw
from ._tilefw import TIUCommand, DMACommand, HAUCommand, BinIntrinsicDesc, UnaryDesc  # noqa: F401

# ---- errors ---------------------------------------------------------------------------------


class TilefwError(Exception):
    """A failure of a tilefw call, carrying the CLI's message and what the CLI reports with it.

    status: the Status name ("cmd_bad_field", ...) or None; status_class: its conformance class;
    offset / command_id: where in the stream; field: the failing field; exit_code: what the CLI
    would exit with (1 invalid / failed, 2 unreadable input, bad option or config)."""

    def __init__(self, message, status=None, status_class=None, offset=None, command_id=None,
                 field=None, exit_code=1, report=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_class = status_class
        self.offset = offset
        self.command_id = command_id
        self.field = field
        self.exit_code = exit_code
        self.report = report


class InputError(TilefwError):
    """Unreadable file, corrupt .bmodel, bad option or config (the CLI's exit code 2)."""


class InvalidDescriptorError(TilefwError):
    """Status class invalid_descriptor: a field breaks a rule of its descriptor or command."""


class MisalignedError(TilefwError):
    """Status class misaligned."""


class OutOfBoundsError(TilefwError):
    """Status class out_of_bounds."""


class IllegalOverlapError(TilefwError):
    """Status class illegal_overlap."""


class CommandError(TilefwError):
    """Status class other: malformed streams, runtime faults, deadlocks, mapping failures."""


ERROR_BY_CLASS = {
    "invalid_descriptor": InvalidDescriptorError,
    "misaligned": MisalignedError,
    "out_of_bounds": OutOfBoundsError,
    "illegal_overlap": IllegalOverlapError,
    "other": CommandError,
}

STATUS_CLASS = {name: cls for name, _number, cls, _text in _tilefw.status_table()}
_WORD = re.compile(r"[a-z][a-z0-9_]+")


def status_class(status):
    """The conformance class of a Status name ("cmd_bad_field" -> "invalid_descriptor"...)."""
    return STATUS_CLASS.get(status)


def _find_status(text):
    for word in _WORD.findall(text):
        if word in STATUS_CLASS and word != "ok":
            return word
    return None


def error_for(message, exit_code, status=None, **kw):
    """The exception for a CLI failure: by the Status's class, else InputError for exit code 2."""
    status = status or _find_status(message)
    cls_name = STATUS_CLASS.get(status)
    if cls_name is not None and exit_code != 2:
        return ERROR_BY_CLASS[cls_name](message, status=status, status_class=cls_name, exit_code=exit_code, **kw)
    kind = InputError if exit_code == 2 else CommandError
    return kind(message, status=status, status_class=cls_name, exit_code=exit_code, **kw)


def _raise_dict(err):
    cls = InputError if err["exit_code"] == 2 else ERROR_BY_CLASS.get(err["status_class"], CommandError)
    raise cls(err["message"], status=err["status"], status_class=err["status_class"], offset=err["offset"],
              command_id=err["command_id"], exit_code=err["exit_code"])


def cli(*args):
    """`tilefw ARGS...` in this process: (exit code, stdout, stderr) as text."""
    rc, out, err = _tilefw.cli([str(a) for a in args])
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _cli_or_raise(*args):
    rc, out, err = cli(*args)
    if rc != 0:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        raise error_for("\n".join(lines) if lines else out.strip(), rc)
    return out, err

# ---- parsing --------------------------------------------------------------------------------


class CommandList(list):
    """The commands of one stream, in order. `trailing` holds the bytes after the last command
    (the zero padding real streams carry), so writing the list back gives the same file."""

    def __init__(self, commands, trailing=b"", source=None):
        super().__init__(commands)
        self.trailing = trailing
        self.source = source


def _parse(path, engine):
    cmds, err, tail = _tilefw.parse_stream(os.fspath(path), engine or "")
    if err is not None:
        _raise_dict(err)
    return CommandList(cmds, tail, os.fspath(path))


class BinaryCommandParser:
    """Parsers of SG2260 command streams (static methods; an instance works too)."""

    @staticmethod
    def parse_tiu(path):
        """The TIU commands of a .BD stream, as TIUCommand objects."""
        return _parse(path, "tiu")

    @staticmethod
    def parse_dma(path, engine=None):
        """The commands of a GDMA, SDMA or CDMA stream (engine from the file name, else gdma)."""
        if engine is None:
            base = os.path.basename(os.fspath(path))
            engine = "sdma" if ".SDMA" in base else "cdma" if ".CDMA" in base else "gdma"
        if engine not in ("gdma", "sdma", "cdma"):
            raise ValueError(f"engine: {engine!r} is not a DMA engine (gdma, sdma or cdma)")
        return _parse(path, engine)

    @staticmethod
    def parse_hau(path):
        """The HAU sync commands of a .HAU stream."""
        return _parse(path, "hau")

    @staticmethod
    def parse(path, engine=None):
        """Any stream; the engine from the file name (.BD, .GDMA, .SDMA, .HAU, .CDMA) unless given."""
        return _parse(path, engine)

    @staticmethod
    def parse_bmodel(path):
        """One dict per core of a .bmodel: "tiu", "gdma", "sdma", "hau" -> CommandList, and
        "cdma" -> a list of CommandList (one per port stream), for the engines the core has."""
        cores, _notes, err = _tilefw.parse_bmodel(os.fspath(path))
        if err is not None:
            _raise_dict(err)
        out = []
        for core in cores:
            d = {}
            for engine, cmds in core.items():
                if engine.startswith("_tail_"):
                    continue
                if engine == "cdma":
                    d[engine] = [CommandList(c) for c in cmds]
                else:
                    d[engine] = CommandList(cmds, core.get("_tail_" + engine, b""), os.fspath(path))
            out.append(d)
        return out

# ---- writing --------------------------------------------------------------------------------


def _write_file(path, data):
    """Writes under a temporary name beside `path` and renames it there (the tools' rule: never
    through a symbolic link, device, FIFO or directory at the final path)."""
    path = os.fspath(path)
    if os.path.lexists(path):
        import stat
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{path}: is not a regular file (symbolic link, device, FIFO or directory)",
                             exit_code=2)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tilefw-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class BinaryCommandWriter:
    """Writers of command streams: the commands' bytes in order, then the list's trailing bytes."""

    @staticmethod
    def to_bytes(cmds):
        return b"".join(c.raw for c in cmds) + getattr(cmds, "trailing", b"")

    @staticmethod
    def write_tiu(cmds, path):
        if any(not isinstance(c, TIUCommand) for c in cmds):
            raise TypeError("write_tiu: every command must be a TIUCommand")
        _write_file(path, BinaryCommandWriter.to_bytes(cmds))

    @staticmethod
    def write_dma(cmds, path):
        if any(not isinstance(c, DMACommand) for c in cmds):
            raise TypeError("write_dma: every command must be a DMACommand")
        _write_file(path, BinaryCommandWriter.to_bytes(cmds))

# ---- validation -----------------------------------------------------------------------------


class ValidationResult:
    """One line of `tilefw validate`: name, ok, and for an invalid stream status, command_id,
    offset, message and field (line is the CLI's line, word for word)."""

    def __init__(self, line, name, ok, commands=None, status=None, command_id=None, offset=None, message=None,
                 field=None):
        self.line, self.name, self.ok, self.commands = line, name, ok, commands
        self.status, self.command_id, self.offset, self.message, self.field = status, command_id, offset, message, field
        self.status_class = STATUS_CLASS.get(status) if status else None

    def __repr__(self):
        return f"<ValidationResult {self.line!r}>"

    def error(self):
        """The exception this result stands for (None when ok)."""
        if self.ok:
            return None
        return error_for(self.line, 2 if self.status == "unreadable" else 1, status=self.status,
                         offset=self.offset, command_id=self.command_id, field=self.field)


_OK_LINE = re.compile(r"^OK (.*): (\d+) commands$")
_BAD_LINE = re.compile(r"^INVALID (.*): (\S+) at command (\d+), byte offset (\d+): (.*)$")
_FIELD = re.compile(r" \(([A-Za-z0-9_.\[\]]+)\)$")


def _result(line):
    m = _OK_LINE.match(line)
    if m:
        return ValidationResult(line, m.group(1), True, commands=int(m.group(2)))
    m = _BAD_LINE.match(line)
    if m:
        f = _FIELD.search(m.group(5))
        return ValidationResult(line, m.group(1), False, status=m.group(2), command_id=int(m.group(3)),
                                offset=int(m.group(4)), message=m.group(5), field=f.group(1) if f else None)
    return None


def validate(paths, engine=None, manifest=None, raise_on_error=False):
    """`tilefw validate` on one path or a list (.BD/.GDMA/.SDMA/... files or .bmodel files): a
    ValidationResult per line the CLI prints. raise_on_error raises the first invalid one's
    exception (InvalidDescriptorError, ... by its Status class; InputError when unreadable)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    args = ["validate"] + (["--engine", engine] if engine else []) + (["--manifest", manifest] if manifest else [])
    rc, out, err = cli(*args, *[os.fspath(p) for p in paths])
    results = [r for r in (_result(ln) for ln in out.splitlines()) if r is not None]
    if not results and rc != 0:
        raise error_for(err.strip() or out.strip(), rc)
    if raise_on_error:
        for r in results:
            if not r.ok:
                raise r.error()
    return results

# ---- a2a3 descriptors -----------------------------------------------------------------------


def ValidateBinIntrinsicDesc(desc, dtype="f16", mask=None):
    """The core's report of one binary vector issue: a dict with status, status_class, field,
    value, limit, byte_offset, repeat_index, block_index, other, message."""
    return _tilefw.validate_bin_intrinsic_desc(desc, dtype, mask)


def IsBinIntrinsicDescValid(desc, dtype="f16", mask=None):
    """True when the core finds nothing wrong with the binary issue (a NOP issue is valid)."""
    return _tilefw.validate_bin_intrinsic_desc(desc, dtype, mask)["status"] == "ok"


def check_descriptor(report):
    """Raises the report's exception (by its Status class) unless it is ok; returns it otherwise."""
    if report["status"] != "ok":
        raise ERROR_BY_CLASS[report["status_class"]](report["message"], status=report["status"],
                                                     status_class=report["status_class"],
                                                     offset=report["byte_offset"], field=report["field"])
    return report


validate_bin_intrinsic_desc = ValidateBinIntrinsicDesc
is_bin_intrinsic_desc_valid = IsBinIntrinsicDescValid


def validate_unary_desc(desc, dtype="f16", mask=None):
    """The core's report of one unary vector issue (the same dict as ValidateBinIntrinsicDesc)."""
    return _tilefw.validate_unary_desc(desc, dtype, mask)
