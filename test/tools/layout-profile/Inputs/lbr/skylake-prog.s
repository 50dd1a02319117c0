# The program of the Skylake LBR fixture (skylake.perf): _start calls foo
# (a loop whose back edge is 0x401310 -> 0x4012f0) and bar, 1000 times.
# Link with ld.lld -Ttext=0x401000.
        .text
        .globl _start
        .type _start,@function
_start:
        movl $1000, %ebx
1:      call foo
        call bar
        decl %ebx
        jne 1b
        movl $60, %eax
        xorl %edi, %edi
        syscall
        .size _start, .-_start

        .org 0x2e0, 0x90
        .globl foo
        .type foo,@function
foo:
        movl $4, %ecx
        .org 0x2f0, 0x90
.Lfoo_loop:
        addl %ecx, %eax
        imull %eax, %eax
        .org 0x30e, 0x90
        decl %ecx
        jne .Lfoo_loop
        retq
        .size foo, .-foo

        .globl bar
        .type bar,@function
bar:
        addl $3, %eax
        retq
        .size bar, .-bar
