/* ARM semihosting calls (QEMU system mode, or a debug probe): console output and exit codes
   for the target test runner. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

enum { SH_OPEN = 0x01, SH_WRITE0 = 0x04, SH_WRITE = 0x05, SH_EXIT = 0x18, SH_EXIT_EXTENDED = 0x20 };
#define ADP_Stopped_ApplicationExit 0x20026
#define ADP_Stopped_RunTimeErrorUnknown 0x20023

static inline int sh_call(int op, const void *arg) {
  register int r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory"); /* M-profile trap */
  return r0;
}

/* SYS_EXIT_EXTENDED lets QEMU exit with `code`; plain SYS_EXIT can only say 0 or 1. */
static inline __attribute__((noreturn)) void sh_exit(int code) {
  const int block[2] = {ADP_Stopped_ApplicationExit, code};
  sh_call(SH_EXIT_EXTENDED, block);
  sh_call(SH_EXIT, (const void *)(code ? ADP_Stopped_RunTimeErrorUnknown : ADP_Stopped_ApplicationExit));
  for (;;) {
  }
}

#ifdef __cplusplus
}
#endif
