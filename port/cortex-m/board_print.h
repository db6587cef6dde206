/* Console output for programs on the Cortex-M boards (the QEMU test runner, the examples)
   without newlib's stdio, whose printf allocates its FILE buffer with malloc. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes len bytes to the semihosting console (stdout of qemu-system-arm). */
void board_write(const char *buf, size_t len);
/* A NUL-terminated string, as is. */
void board_print(const char *s);
/* s left-aligned in a field of `width` characters (printf's %-*s). */
void board_print_padded(const char *s, unsigned width);
void board_print_u64(uint64_t v);
void board_print_i64(int64_t v);
/* 0x-prefixed lower-case hex, at least min_digits digits. */
void board_print_hex(uint64_t v, unsigned min_digits);
/* printf's %g, to 9 significant digits (enough to tell floats apart); nan, inf, -0 spelled
   out. Diagnostics only: the last digit may be off by one for values far from 1. */
void board_print_double(double v);

#ifdef __cplusplus
}
#endif
