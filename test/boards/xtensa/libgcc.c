/* The integer helpers gcc calls for division and 64-bit multiplication, which Debian's
 * libgcc for the LX106 core lacks (on an ESP8266 they are in the chip's ROM). Plain
 * shift-and-subtract and 16-bit partial products: written with no `/`, `%` or 64-bit
 * `*`, which would call these very functions. libgcc_check.c compares them with the
 * host's operators on edge and random values. */
#include "libgcc.h"

/* n / d and n % d by restoring division, one quotient bit per step from n's highest set
 * bit (so a 32-bit division takes at most 32 steps); d != 0 (wasm2c's code checks for zero
 * before it divides). The carry keeps the running remainder exact when doubling it passes
 * 2^64. One function for both widths: a u32 quotient and remainder are the u64 ones. */
static uint64_t divmod64(uint64_t n, uint64_t d, uint64_t *rem) {
  uint64_t q = 0, r = 0;
  int top = 63;
  while (top > 0 && (n >> top) == 0) top--;
  for (int i = top; i >= 0; i--) {
    uint64_t carry = r >> 63;
    r = (r << 1) | ((n >> i) & 1u);
    if (carry || r >= d) {
      r -= d;
      q |= (uint64_t)1 << i;
    }
  }
  *rem = r;
  return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d) {
  uint64_t r;
  return divmod64(n, d, &r);
}

uint64_t __umoddi3(uint64_t n, uint64_t d) {
  uint64_t r;
  divmod64(n, d, &r);
  return r;
}

uint32_t __udivsi3(uint32_t n, uint32_t d) { return (uint32_t)__udivdi3(n, d); }

uint32_t __umodsi3(uint32_t n, uint32_t d) { return (uint32_t)__umoddi3(n, d); }

static uint32_t magnitude(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* Truncates toward zero, as C does. */
int32_t __divsi3(int32_t n, int32_t d) {
  uint32_t q = __udivsi3(magnitude(n), magnitude(d));
  return (int32_t)((n < 0) != (d < 0) ? 0u - q : q);
}

/* The full 64-bit product of two u32 from four 16-bit partial products. */
static uint64_t mul32x32(uint32_t a, uint32_t b) {
  uint32_t a0 = a & 0xffffu, a1 = a >> 16, b0 = b & 0xffffu, b1 = b >> 16;
  uint32_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint32_t mid = (p00 >> 16) + (p01 & 0xffffu) + (p10 & 0xffffu); /* at most 3 * 0xffff */
  uint32_t lo = (mid << 16) | (p00 & 0xffffu);
  uint32_t hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
  return (uint64_t)hi << 32 | lo;
}

/* The low 64 bits of a * b: the cross terms only reach the high word. */
uint64_t __muldi3(uint64_t a, uint64_t b) {
  uint32_t alo = (uint32_t)a, ahi = (uint32_t)(a >> 32);
  uint32_t blo = (uint32_t)b, bhi = (uint32_t)(b >> 32);
  uint64_t low = mul32x32(alo, blo);
  uint32_t cross = alo * bhi + ahi * blo;
  return low + ((uint64_t)cross << 32);
}
