/* The libgcc helpers libgcc.c provides for the LX106 core (libgcc.c says why). */
#ifndef XTENSA_LIBGCC_H
#define XTENSA_LIBGCC_H

#include <stdint.h>

uint32_t __udivsi3(uint32_t n, uint32_t d);
uint32_t __umodsi3(uint32_t n, uint32_t d);
int32_t __divsi3(int32_t n, int32_t d);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
uint64_t __muldi3(uint64_t a, uint64_t b);

#endif
