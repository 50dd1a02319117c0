# A libc-free program with a loop, a call to a local function and a
# conditional branch, for the callgrind reader's tests. Built by
# test/unit/profile/CMakeLists.txt as "tiny" (non-PIE, .text at 0x401000)
# and "tiny-pie"; the callgrind fixtures beside it are valgrind's output
# for those two binaries.
#   _start: for (i = 0; i < 10; ++i) total += f(i); exit(0)
# (total lives in .data: valgrind reads an object's symbols only once it
# has mapped both its code and a writable segment)
#   f:      odd ? i + 1 : i * 2
# Offsets the tests rely on: _start+0x5 loop head, +0x7 call f, +0xc return
# point, +0x14 jne; f+0x6 je, +0xb ret, +0xc .Leven, +0x10 ret.
  .text
  .globl _start
  .type _start,@function
_start:
  xor %ebx, %ebx
  xor %r12d, %r12d
.Lloop:
  mov %ebx, %edi
  call f
  add %eax, %r12d
  inc %ebx
  cmp $10, %ebx
  jne .Lloop
  mov %r12d, total(%rip)
  mov $60, %eax
  xor %edi, %edi
  syscall
  .size _start, .-_start

  .type f,@function
f:
  test $1, %edi
  je .Leven
  lea 1(%rdi), %eax
  ret
.Leven:
  mov %edi, %eax
  shl $1, %eax
  ret
  .size f, .-f

  .data
  .p2align 2
total:
  .long 0
