#!/usr/bin/env python3
"""check_symbols.py NM FILE...

Fails when a static library or ELF defines or references a heap, exception, unwinder or RTTI
runtime symbol: malloc/free and friends, operator new/delete (a virtual destructor pulls
delete in), __cxa_throw and the personality routine, _Unwind_*, typeinfo (_ZTI/_ZTS)."""
import subprocess
import sys

EXACT = {
    "malloc", "free", "calloc", "realloc", "aligned_alloc", "memalign", "posix_memalign",
    "_malloc_r", "_free_r", "_calloc_r", "_realloc_r", "_sbrk_r",
    "__cxa_throw", "__cxa_allocate_exception", "__cxa_begin_catch", "__cxa_end_catch",
    "__cxa_rethrow", "__gxx_personality_v0", "__cxa_bad_cast", "__cxa_bad_typeid",
    "__dynamic_cast", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_atexit",
    "__aeabi_unwind_cpp_pr0", "__aeabi_unwind_cpp_pr1", "__aeabi_unwind_cpp_pr2",
}
PREFIXES = (
    "_Znw", "_Zna", "_ZdlPv", "_ZdaPv",  # operator new/new[]/delete/delete[]
    "_ZTI", "_ZTS",                      # typeinfo (RTTI)
    "_ZSt9terminate",                    # std::terminate (its verbose handler allocates)
    "_Unwind_",                          # the unwinder
)


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    nm, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for path in files:
        out = subprocess.run([nm, "-A", path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if not parts:
                continue
            name = parts[-1]
            if name in EXACT or name.startswith(PREFIXES):
                print("forbidden:", line)
                bad += 1
    print(f"{len(files)} file(s) checked, {bad} forbidden symbol(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
