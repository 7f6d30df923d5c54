/* Checks libgcc.c's helpers against this machine's own operators: edge values, then a
 * few hundred thousand values from a fixed-seed generator. Prints "libgcc ok" and
 * exits 0, or prints the first difference and exits 1. Built for the host. */
#include <inttypes.h>
#include <stdio.h>

#include "libgcc.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

/* xorshift64*, with the bit width varied so that small and large values both occur. */
static uint64_t next(void) {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  uint64_t v = state * 0x2545f4914f6cdd1du;
  return v >> (v & 63);
}

static const uint64_t edges[] = {0, 1, 2, 3, 7, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0x80000001,
                                 0xfffffffe, 0xffffffff, 0x100000000u, 0x7fffffffffffffffu,
                                 0x8000000000000000u, 0xffffffffffffffffu};

static int check(uint64_t a, uint64_t b) {
  uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
  int32_t sa = (int32_t)a32, sb = (int32_t)b32;
  int ok = __muldi3(a, b) == a * b;
  if (b32) {
    ok = ok && __udivsi3(a32, b32) == a32 / b32 && __umodsi3(a32, b32) == a32 % b32;
    if (!(sa == INT32_MIN && sb == -1)) ok = ok && __divsi3(sa, sb) == sa / sb;
  }
  if (b) ok = ok && __udivdi3(a, b) == a / b && __umoddi3(a, b) == a % b;
  if (!ok) printf("libgcc differs at a=%" PRIu64 " b=%" PRIu64 "\n", a, b);
  return ok;
}

int main(void) {
  size_t n = sizeof edges / sizeof edges[0];
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) {
      if (!check(edges[i], edges[j])) return 1;
    }
  }
  for (int i = 0; i < 300000; i++) {
    uint64_t a = next(), b = next();
    if (!check(a, b)) return 1;
  }
  puts("libgcc ok");
  return 0;
}
