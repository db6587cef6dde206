# Type stub of the tilefw package (docs/python.md).
import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Type, Union

import numpy

PathLike = Union[str, os.PathLike]
__version__: str

# ---- errors ----
class TilefwError(Exception):
    message: str
    status: Optional[str]
    status_class: Optional[str]
    offset: Optional[int]
    command_id: Optional[int]
    field: Optional[str]
    exit_code: int
    report: Optional[Dict[str, Any]]
    def __init__(self, message: str, status: Optional[str] = ..., status_class: Optional[str] = ...,
                 offset: Optional[int] = ..., command_id: Optional[int] = ..., field: Optional[str] = ...,
                 exit_code: int = ..., report: Optional[Dict[str, Any]] = ...) -> None: ...
class InputError(TilefwError): ...
class InvalidDescriptorError(TilefwError): ...
class MisalignedError(TilefwError): ...
class OutOfBoundsError(TilefwError): ...
class IllegalOverlapError(TilefwError): ...
class CommandError(TilefwError): ...

ERROR_BY_CLASS: Dict[str, Type[TilefwError]]
STATUS_CLASS: Dict[str, str]
def status_class(status: str) -> Optional[str]: ...
def cli(*args: Any) -> Tuple[int, str, str]: ...

# ---- commands ----
class TIUCommand:
    cmd_id: int
    cmd_id_dep: int
    dep_enabled: bool
    tsk_typ: int
    eu_typ: int
    precision: Optional[int]
    class_name: str
    op: str
    engine: str
    offset: int
    file_offset: int
    length: int
    raw: bytes
    fields: Dict[str, int]
    def __getattr__(self, name: str) -> Optional[int]: ...

class DMACommand:
    cmd_id: int
    cmd_id_dep: int
    dep_enabled: bool
    cmd_type: int
    sp_func: int
    src_addr: Optional[int]
    dst_addr: Optional[int]
    src_shape: Optional[Tuple[int, ...]]
    dst_shape: Optional[Tuple[int, ...]]
    src_stride: Optional[Tuple[int, ...]]
    dst_stride: Optional[Tuple[int, ...]]
    data_format: Optional[int]
    direction: Optional[str]
    class_name: str
    op: str
    engine: str
    offset: int
    file_offset: int
    length: int
    raw: bytes
    fields: Dict[str, int]
    def __getattr__(self, name: str) -> Optional[int]: ...

class HAUCommand:
    cmd_id: int
    op: str
    engine: str
    msg_id: int
    msg_cnt: int
    eod: bool
    offset: int
    length: int
    raw: bytes

Command = Union[TIUCommand, DMACommand, HAUCommand]

class CommandList(List[Any]):
    trailing: bytes
    source: Optional[str]
    def __init__(self, commands: Sequence[Any], trailing: bytes = ..., source: Optional[str] = ...) -> None: ...

class BinaryCommandParser:
    @staticmethod
    def parse_tiu(path: PathLike) -> CommandList: ...
    @staticmethod
    def parse_dma(path: PathLike, engine: Optional[str] = ...) -> CommandList: ...
    @staticmethod
    def parse_hau(path: PathLike) -> CommandList: ...
    @staticmethod
    def parse(path: PathLike, engine: Optional[str] = ...) -> CommandList: ...
    @staticmethod
    def parse_bmodel(path: PathLike) -> List[Dict[str, Any]]: ...

class BinaryCommandWriter:
    @staticmethod
    def to_bytes(cmds: Sequence[Command]) -> bytes: ...
    @staticmethod
    def write_tiu(cmds: Sequence[TIUCommand], path: PathLike) -> None: ...
    @staticmethod
    def write_dma(cmds: Sequence[DMACommand], path: PathLike) -> None: ...

# ---- validation ----
class ValidationResult:
    line: str
    name: str
    ok: bool
    commands: Optional[int]
    status: Optional[str]
    status_class: Optional[str]
    command_id: Optional[int]
    offset: Optional[int]
    message: Optional[str]
    field: Optional[str]
    def error(self) -> Optional[TilefwError]: ...

def validate(paths: Union[PathLike, Sequence[PathLike]], engine: Optional[str] = ..., manifest: Optional[PathLike] = ...,
             raise_on_error: bool = ...) -> List[ValidationResult]: ...

# ---- generation and runs ----
class GeneratedProgram:
    dir: str
    summary: str
    manifest: Dict[str, Any]
    manifest_path: str
    tiu_cmds: List[CommandList]
    dma_cmds: List[CommandList]
    sdma_cmds: List[CommandList]
    def __iter__(self) -> Iterator[List[CommandList]]: ...
    def write(self, folder: PathLike) -> str: ...

class InstructionGenerator:
    model_config: Union[Dict[str, Any], PathLike]
    chip_config: Union[Dict[str, Any], PathLike, None]
    def __init__(self, model_config: Union[Dict[str, Any], PathLike],
                 chip_config: Union[Dict[str, Any], PathLike, None] = ...) -> None: ...
    def generate(self, batch_size: int = ..., seq_len: Optional[int] = ..., phase: str = ...,
                 parallelism: Optional[Mapping[str, int]] = ..., kv_len: Optional[int] = ..., layer: int = ...,
                 timing_only: bool = ..., model: bool = ..., seed: Optional[int] = ..., dtype: Optional[str] = ...,
                 weights: Optional[PathLike] = ..., out: Optional[PathLike] = ...,
                 extra_args: Sequence[Any] = ...) -> GeneratedProgram: ...

class RunResult:
    report: Dict[str, Any]
    outputs: Dict[str, numpy.ndarray]
    stdout: str
    stderr: str

def run(target: Union[GeneratedProgram, PathLike], timing_only: bool = ..., strict: bool = ...,
        out: Optional[PathLike] = ..., order: Optional[str] = ..., seed: Optional[int] = ...,
        timing_model: Optional[str] = ..., routing: Optional[str] = ..., trace: Optional[PathLike] = ...,
        inputs: Optional[Mapping[str, PathLike]] = ..., extra_args: Sequence[Any] = ...) -> RunResult: ...

# ---- a2a3 descriptors ----
class BinIntrinsicDesc:
    op: str
    repeat: int
    dst_block_stride: int
    src0_block_stride: int
    src1_block_stride: int
    dst_repeat_stride: int
    src0_repeat_stride: int
    src1_repeat_stride: int
    mask_mode: str
    vector_count: int
    tail_elements: int
    repeat_stride_mode: bool
    stride_size_mode: bool
    dst: int
    src0: int
    src1: int
    def __init__(self) -> None: ...

class UnaryDesc:
    op: str
    repeat: int
    dst_block_stride: int
    src_block_stride: int
    dst_repeat_stride: int
    src_repeat_stride: int
    dst: int
    src: int
    def __init__(self) -> None: ...

def ValidateBinIntrinsicDesc(desc: BinIntrinsicDesc, dtype: str = ..., mask: Optional[int] = ...) -> Dict[str, Any]: ...
def IsBinIntrinsicDescValid(desc: BinIntrinsicDesc, dtype: str = ..., mask: Optional[int] = ...) -> bool: ...
def validate_bin_intrinsic_desc(desc: BinIntrinsicDesc, dtype: str = ..., mask: Optional[int] = ...) -> Dict[str, Any]: ...
def is_bin_intrinsic_desc_valid(desc: BinIntrinsicDesc, dtype: str = ..., mask: Optional[int] = ...) -> bool: ...
def validate_unary_desc(desc: UnaryDesc, dtype: str = ..., mask: Optional[int] = ...) -> Dict[str, Any]: ...
def check_descriptor(report: Dict[str, Any]) -> Dict[str, Any]: ...
