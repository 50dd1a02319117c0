// A chain of HOPS direct jumps STRIDE bytes apart (the odd ones ODD bytes
// further), ending in a return; main calls it 5000 times.  main and the
// chain start on 16 KB boundaries, so where each hop lands in the BTB, the
// uop cache, the I1 and the TLBs follows from STRIDE and ODD alone.
        .text
        .globl main
        .type main,@function
        .p2align 14
main:
        mov $5000, %ecx
1:      call chain
        dec %ecx
        jnz 1b
        xor %eax, %eax
        ret
        .p2align 14
chain:
        .set i, 0
        .rept HOPS
        .org chain + i * STRIDE + (i & 1) * ODD, 0xcc
        jmp chain + (i + 1) * STRIDE + ((i + 1) & 1) * ODD
        .set i, i + 1
        .endr
        .org chain + HOPS * STRIDE + (HOPS & 1) * ODD, 0xcc
        ret
        .section .note.GNU-stack,"",@progbits
