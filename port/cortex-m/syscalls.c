/* newlib-nano system calls over semihosting: what printf and exit need on the QEMU boards.
   The small static heap serves only newlib's stdio FILE buffers in test programs; the tilefw
   library itself never allocates (the link-level symbol test proves it). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "semihost.h"

#define SYSCALL __attribute__((used)) /* keep under LTO: libc refers to them late */
#ifndef SYSCALLS_HEAP_SIZE
#define SYSCALLS_HEAP_SIZE 4096
#endif

SYSCALL void _exit(int status) { sh_exit(status); }

SYSCALL int _write(int fd, const char *buf, int len) {
  static int tt = -1; /* semihosting handle of ":tt" opened for writing */
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  if (tt < 0) {
    const uintptr_t open_args[3] = {(uintptr_t) ":tt", 4 /* "w" */, 3};
    tt = sh_call(SH_OPEN, open_args);
  }
  const uintptr_t write_args[3] = {(uintptr_t)tt, (uintptr_t)buf, (uintptr_t)len};
  return len - sh_call(SH_WRITE, write_args); /* SYS_WRITE returns the bytes NOT written */
}

SYSCALL void *_sbrk(ptrdiff_t incr) {
  static char heap[SYSCALLS_HEAP_SIZE] __attribute__((aligned(8)));
  static char *brk = heap;
  if (incr > heap + sizeof heap - brk) {
    errno = ENOMEM;
    return (void *)-1;
  }
  char *prev = brk;
  brk += incr;
  return prev;
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
