/* Console output for the Cortex-M boards without stdio: every call formats into a small stack
   buffer and hands it to the semihosting SYS_WRITE in one trap. No heap, no static buffer to
   flush at exit, so output is complete even when a test faults. */
#include "board_print.h"

#include "semihost.h"

void board_write(const char *buf, size_t len) {
  static int tt = -1; /* semihosting handle of ":tt" opened for writing (stdout) */
  if (len == 0) return;
  if (tt < 0) {
    const uintptr_t open_args[3] = {(uintptr_t) ":tt", 4 /* "w" */, 3};
    tt = sh_call(SH_OPEN, open_args);
  }
  const uintptr_t write_args[3] = {(uintptr_t)tt, (uintptr_t)buf, (uintptr_t)len};
  (void)sh_call(SH_WRITE, write_args);
}

static size_t length_of(const char *s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

void board_print(const char *s) {
  if (s == NULL) s = "(null)";
  board_write(s, length_of(s));
}

void board_print_padded(const char *s, unsigned width) {
  static const char spaces[] = "                                ";
  if (s == NULL) s = "(null)";
  size_t n = length_of(s);
  board_write(s, n);
  while (n < width) {
    size_t k = width - n < sizeof spaces - 1 ? width - n : sizeof spaces - 1;
    board_write(spaces, k);
    n += k;
  }
}

/* Digits of v, most significant first, ending at end (exclusive); returns the first. */
static char *format_u64(uint64_t v, char *end) {
  char *p = end;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  return p;
}

void board_print_u64(uint64_t v) {
  char buf[20];
  char *p = format_u64(v, buf + sizeof buf);
  board_write(p, (size_t)(buf + sizeof buf - p));
}

void board_print_i64(int64_t v) {
  char buf[21];
  const uint64_t mag = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
  char *p = format_u64(mag, buf + sizeof buf);
  if (v < 0) *--p = '-';
  board_write(p, (size_t)(buf + sizeof buf - p));
}

void board_print_hex(uint64_t v, unsigned min_digits) {
  char buf[18];
  char *p = buf + sizeof buf;
  unsigned n = 0;
  do {
    *--p = "0123456789abcdef"[v & 0xFu];
    v >>= 4;
    ++n;
  } while ((v != 0 || n < min_digits) && n < 16);
  *--p = 'x';
  *--p = '0';
  board_write(p, (size_t)(buf + sizeof buf - p));
}

void board_print_double(double v) {
  char buf[32];
  char *p = buf;
  if (v != v) {
    board_print("nan");
    return;
  }
  union {
    double d;
    uint64_t u;
  } pun = {v}; /* the sign bit, so that -0 prints as -0 */
  if (pun.u >> 63) {
    *p++ = '-';
    v = -v;
  }
  if (v > 1.7976931348623157e308) {
    board_write(buf, (size_t)(p - buf));
    board_print("inf");
    return;
  }
  if (v == 0) {
    *p++ = '0';
    board_write(buf, (size_t)(p - buf));
    return;
  }
  /* Scale into [1, 10) and take 9 significant digits as an integer. */
  int exp10 = 0;
  while (v >= 10) v /= 10, ++exp10;
  while (v < 1) v *= 10, --exp10;
  uint64_t digits = (uint64_t)(v * 1e8 + 0.5);
  if (digits >= 1000000000u) digits /= 10, ++exp10;
  char d[9];
  for (int i = 8; i >= 0; --i) d[i] = (char)('0' + digits % 10), digits /= 10;
  int last = 8; /* drop trailing zeros */
  while (last > 0 && d[last] == '0') --last;
  if (exp10 >= -4 && exp10 < 9) { /* fixed notation, as %g chooses it */
    if (exp10 < 0) {
      *p++ = '0', *p++ = '.';
      for (int i = -1; i > exp10; --i) *p++ = '0';
      for (int i = 0; i <= last; ++i) *p++ = d[i];
    } else {
      for (int i = 0; i <= exp10; ++i) *p++ = d[i];
      if (last > exp10) {
        *p++ = '.';
        for (int i = exp10 + 1; i <= last; ++i) *p++ = d[i];
      }
    }
  } else { /* d.ddde+XX */
    *p++ = d[0];
    if (last > 0) {
      *p++ = '.';
      for (int i = 1; i <= last; ++i) *p++ = d[i];
    }
    *p++ = 'e';
    *p++ = exp10 < 0 ? '-' : '+';
    const unsigned e = (unsigned)(exp10 < 0 ? -exp10 : exp10);
    if (e >= 100) *p++ = (char)('0' + e / 100);
    *p++ = (char)('0' + e / 10 % 10);
    *p++ = (char)('0' + e % 10);
  }
  board_write(buf, (size_t)(p - buf));
}
