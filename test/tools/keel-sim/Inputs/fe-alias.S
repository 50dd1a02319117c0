// 10000 times: a 4-byte store to buf, then a 4-byte load from buf + DIST
// (one 64-byte line either way: 4096 and 4100 are in the same line of the
// second page).
        .text
        .globl main
        .type main,@function
main:
        lea buf(%rip), %rdi
        mov $10000, %ecx
1:      mov %ecx, (%rdi)
        mov DIST(%rdi), %eax
        dec %ecx
        jnz 1b
        xor %eax, %eax
        ret
        .bss
        .p2align 12
buf:    .zero 8192
        .section .note.GNU-stack,"",@progbits
