// Console output shared by the examples: stdio on the host, the board's semihosting console
// (port/cortex-m/board_print.h) on Cortex-M, where printf would pull in malloc.
#pragma once

#include <cstdint>

#if defined(TILEFW_EXAMPLE_TARGET)
#include "board_print.h"
#else
#include <cstdio>
#endif

namespace example {

#if defined(TILEFW_EXAMPLE_TARGET)
inline void print(const char* s) { board_print(s); }
inline void print_padded(const char* s, unsigned width) { board_print_padded(s, width); }
inline void print_u64(uint64_t v) { board_print_u64(v); }
inline void print_i64(int64_t v) { board_print_i64(v); }
inline void print_double(double v) { board_print_double(v); }
#else
inline void print(const char* s) { std::fputs(s, stdout); }
inline void print_padded(const char* s, unsigned width) {
  std::printf("%-*s", static_cast<int>(width), s);
}
inline void print_u64(uint64_t v) { std::printf("%llu", static_cast<unsigned long long>(v)); }
inline void print_i64(int64_t v) { std::printf("%lld", static_cast<long long>(v)); }
inline void print_double(double v) { std::printf("%.9g", v); }
#endif

}  // namespace example
