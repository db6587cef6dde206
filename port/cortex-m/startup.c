/* Cortex-M startup for the QEMU boards (mps2-an386, mps3-an547) and boards like them: vector
   table, Reset_Handler (FPU/MVE enable, .data copy, .bss clear, constructors), exit(main()).
   A fault or unexpected exception exits through semihosting with code 127. */
#include <stdint.h>
#include <stdlib.h>

#include "semihost.h"

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[], __stack_top__[];
extern void (*__preinit_array_start[])(void), (*__preinit_array_end[])(void);
extern void (*__init_array_start[])(void), (*__init_array_end[])(void);
extern int main(void);

void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));

typedef void (*handler_t)(void);

__attribute__((section(".isr_vector"), used)) const handler_t g_vectors[16] = {
    __extension__(handler_t) __stack_top__,
    Reset_Handler,
    /* NMI, HardFault, MemManage, BusFault, UsageFault, SecureFault */
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    0, 0, 0,
    Fault_Handler /* SVC */, Fault_Handler /* DebugMon */, 0,
    Fault_Handler /* PendSV */, Fault_Handler /* SysTick */};

void Fault_Handler(void) {
  sh_call(SH_WRITE0, "*** fault / unexpected exception\n");
  sh_exit(0x7F);
}

/* No library calls or vector code here: the FPU/MVE are still off and .data is not set up,
   so keep GCC from turning the loops into memcpy/memset or vectorising them. */
__attribute__((optimize("no-tree-loop-distribute-patterns", "no-tree-vectorize")))
void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10/CP11 full access (FPU, MVE) */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  for (uint32_t *s = __data_load__, *d = __data_start__; d < __data_end__;) *d++ = *s++;
  for (uint32_t *d = __bss_start__; d < __bss_end__;) *d++ = 0;
  for (void (**f)(void) = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
  for (void (**f)(void) = __init_array_start; f < __init_array_end; ++f) (*f)();
  exit(main()); /* atexit handlers, then _exit() -> semihosting exit with main's code */
}
