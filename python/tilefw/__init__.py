"""tilefw: the Python classes NPU performance models are scripted with, over tilefw's C++ host
library and tools.

    from tilefw import BinaryCommandParser, InstructionGenerator, run, validate
    tiu = BinaryCommandParser.parse_tiu("model.BD")
    program = InstructionGenerator("config.json").generate(batch_size=8, seq_len=128,
                                                           parallelism={"tp": 4})
    tiu_cmds, dma_cmds = program
    result = run(program, timing_only=True)
    result.report["seconds"], result.report["bound_seconds"]

Messages and exit codes are the `tilefw` CLI's (the same code runs in this process)."""
from ._api import (BinaryCommandParser, BinaryCommandWriter, BinIntrinsicDesc, CommandError, CommandList,
                   DMACommand, HAUCommand, IllegalOverlapError, InputError, InvalidDescriptorError,
                   IsBinIntrinsicDescValid, MisalignedError, OutOfBoundsError, TIUCommand, TilefwError,
                   UnaryDesc, ValidateBinIntrinsicDesc, ValidationResult, check_descriptor, cli,
                   is_bin_intrinsic_desc_valid, status_class, validate, validate_bin_intrinsic_desc,
                   validate_unary_desc, ERROR_BY_CLASS, STATUS_CLASS)
from ._program import GeneratedProgram, InstructionGenerator, RunResult, run

__version__ = "0.1.0"

__all__ = [
    "BinaryCommandParser", "BinaryCommandWriter", "BinIntrinsicDesc", "CommandError", "CommandList",
    "DMACommand", "ERROR_BY_CLASS", "GeneratedProgram", "HAUCommand", "IllegalOverlapError", "InputError",
    "InstructionGenerator", "InvalidDescriptorError", "IsBinIntrinsicDescValid", "MisalignedError",
    "OutOfBoundsError", "RunResult", "STATUS_CLASS", "TIUCommand", "TilefwError", "UnaryDesc",
    "ValidateBinIntrinsicDesc", "ValidationResult", "check_descriptor", "cli", "is_bin_intrinsic_desc_valid",
    "run", "status_class", "validate", "validate_bin_intrinsic_desc", "validate_unary_desc",
]
