/* A stand-in for <sys/mman.h>, which picolibc (no OS, no MMU) does not have: the
 * RV32 test build puts this folder on its include path, and the ESP32 wasm2c build
 * copies the file beside the generated C (wasm2c_sources.py).
 * wasm-rt-impl.c includes it on every non-Windows target, but built with
 * WASM_RT_MEMCHECK_SIGNAL_HANDLER=0 it never calls it: its mmap helpers are unused
 * static functions that -Os drops. These declarations only let it compile; a real call
 * would fail to link, which is the point. */
#ifndef TICKRETRY_NO_MMU_SYS_MMAN_H
#define TICKRETRY_NO_MMU_SYS_MMAN_H

#include <stddef.h>
#include <sys/types.h>

#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20
#define MAP_FAILED ((void *)-1)

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
int munmap(void *addr, size_t length);
int mprotect(void *addr, size_t length, int prot);

#endif
