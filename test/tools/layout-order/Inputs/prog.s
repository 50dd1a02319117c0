# Functions and data laid out against the plan: the hot ones (hot_a calls
# hot_b; they touch hot_ro, hot_r and hot_w) sit among cold ones, in the
# wrong order. Used with Inputs/prog.fdata by the layout-order tests.
  .text
  .section .text.cold1,"ax",@progbits
  .globl cold1
  .type cold1,@function
  .p2align 4
cold1:
  movl cold_d(%rip), %eax
  ret
  .size cold1, .-cold1

  .section .text.hot_b,"ax",@progbits
  .globl hot_b
  .type hot_b,@function
  .p2align 4
hot_b:
  movl hot_r(%rip), %ecx
  addl %ecx, %eax
  ret
  .size hot_b, .-hot_b

  .section .text.warm1,"ax",@progbits
  .globl warm1
  .type warm1,@function
  .p2align 4
warm1:
  movl cold_ro(%rip), %eax
  ret
  .size warm1, .-warm1

  .section .text.cold2,"ax",@progbits
  .globl cold2
  .type cold2,@function
  .p2align 4
cold2:
  call cold1
  ret
  .size cold2, .-cold2

  .section .text.hot_a,"ax",@progbits
  .globl hot_a
  .type hot_a,@function
  .p2align 4
hot_a:
  movl hot_ro(%rip), %eax
  movl %eax, hot_w(%rip)
  call hot_b
  ret
  .size hot_a, .-hot_a

  .section .text.main,"ax",@progbits
  .globl main
  .type main,@function
  .p2align 4
main:
  call hot_a
  call warm1
  ret
  .size main, .-main

  .section .text._start,"ax",@progbits
  .globl _start
  .type _start,@function
  .p2align 4
_start:
  call main
  movl $60, %eax
  xorl %edi, %edi
  syscall
  .size _start, .-_start

  .section .data.cold_d,"aw",@progbits
  .globl cold_d
  .type cold_d,@object
  .p2align 2
cold_d:
  .long 1
  .size cold_d, 4
  .section .data.hot_r,"aw",@progbits
  .globl hot_r
  .type hot_r,@object
  .p2align 2
hot_r:
  .long 2
  .size hot_r, 4
  .section .rodata.cold_ro,"a",@progbits
  .globl cold_ro
  .type cold_ro,@object
  .p2align 2
cold_ro:
  .long 3
  .size cold_ro, 4
  .section .rodata.hot_ro,"a",@progbits
  .globl hot_ro
  .type hot_ro,@object
  .p2align 2
hot_ro:
  .long 4
  .size hot_ro, 4
  .section .bss.cold_bss,"aw",@nobits
  .globl cold_bss
  .type cold_bss,@object
  .p2align 2
cold_bss:
  .zero 4
  .size cold_bss, 4
  .section .bss.hot_w,"aw",@nobits
  .globl hot_w
  .type hot_w,@object
  .p2align 2
hot_w:
  .zero 4
  .size hot_w, 4
