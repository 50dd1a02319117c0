// A 20-byte loop, 10000 iterations, starting OFFSET bytes into a 64-byte
// line: inside one 32-byte window for OFFSET <= 12, across two from 13 on;
// in one 64-byte I1 line either way.
        .text
        .globl main
        .type main,@function
        .p2align 6
main:
        mov $10000, %ecx
        xor %edx, %edx
        jmp body
        .p2align 6
        .skip OFFSET, 0xcc
body:
        add %ecx, %edx
        add %edx, %eax
        add %ecx, %edx
        add %edx, %eax
        add %ecx, %edx
        add %edx, %eax
        add %ecx, %edx
        dec %ecx
        jnz body
        xor %eax, %eax
        ret
        .section .note.GNU-stack,"",@progbits
