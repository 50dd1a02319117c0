// 1000 times: a recursion DEPTH calls deep (DEPTH + 1 calls of rec, then as
// many returns).
        .text
        .globl main
        .type main,@function
main:
        push %rbx
        mov $1000, %ebx
1:      mov $DEPTH, %edi
        call rec
        dec %ebx
        jnz 1b
        pop %rbx
        xor %eax, %eax
        ret
rec:
        test %edi, %edi
        jz 2f
        dec %edi
        call rec
2:      ret
        .section .note.GNU-stack,"",@progbits
