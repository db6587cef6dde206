/* newlib-nano system calls over semihosting for the QEMU boards. The programs print through
   board_print.h, not stdio (newlib's printf mallocs its FILE buffer); these calls exist so that
   a libc function a program does use links, and they keep the no-heap rule: _sbrk refuses every
   request, so an accidental malloc fails at once instead of quietly eating RAM. The link-level
   test (scripts/check_symbols.py) proves the test ELFs contain no malloc at all. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "board_print.h"
#include "semihost.h"

#define SYSCALL __attribute__((used)) /* keep under LTO: libc refers to them late */

SYSCALL void _exit(int status) { sh_exit(status); }

SYSCALL int _write(int fd, const char *buf, int len) {
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  board_write(buf, (size_t)len);
  return len;
}

/* No heap: firmware built on tilefw owns all its memory statically. */
SYSCALL void *_sbrk(ptrdiff_t incr) {
  (void)incr;
  errno = ENOMEM;
  return (void *)-1;
}

SYSCALL int _read(int fd, char *buf, int len) {
  (void)fd;
  (void)buf;
  (void)len;
  return 0;
}
SYSCALL int _close(int fd) {
  (void)fd;
  return -1;
}
SYSCALL int _lseek(int fd, int off, int whence) {
  (void)fd;
  (void)off;
  (void)whence;
  return 0;
}
SYSCALL int _isatty(int fd) {
  (void)fd;
  return 1;
}
SYSCALL int _fstat(int fd, struct stat *st) {
  (void)fd;
  st->st_mode = S_IFCHR;
  return 0;
}
SYSCALL int _getpid(void) { return 1; }
SYSCALL int _kill(int pid, int sig) {
  (void)pid;
  (void)sig;
  errno = EINVAL;
  return -1;
}
