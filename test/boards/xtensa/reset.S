/* The Xtensa LX106 core of QEMU's sim machine starts at its reset vector, 0x50000000,
 * not at the ELF's entry point; xtensa.ld places this stub there. It sets the stack
 * pointer (a1 in the call0 ABI) and jumps to xtensa_start (start.c). l32r loads only
 * from a lower address, so the two words come first and the code jumps over them. */
        .section .reset, "ax"
        .global __reset
        .align 4
__reset:
        j       1f
        .align 4
2:      .word   __stack
3:      .word   xtensa_start
        .align 4
1:      l32r    a1, 2b
        l32r    a0, 3b
        jx      a0
