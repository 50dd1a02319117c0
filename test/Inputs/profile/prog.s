# A tiny static program for the profile-reader tests: _start calls main,
# main calls step 100 times, step branches on the parity of its argument.
# Linked with -Ttext=0x201000 the addresses are fixed (see the tests).
	.text
	.globl	_start
	.type	_start,@function
_start:
	callq	main
	movl	%eax, %edi
	movl	$60, %eax
	syscall
	.size	_start, .-_start

	.globl	main
	.type	main,@function
main:
	pushq	%rbx
	movl	$100, %ebx
.Lloop:
	movl	%ebx, %edi
	callq	step
	decl	%ebx
	jne	.Lloop
	popq	%rbx
	xorl	%eax, %eax
	retq
	.size	main, .-main

	.type	step,@function
step:
	testl	$1, %edi
	je	.Leven
	addl	$3, %edi
	jmp	.Ldone
.Leven:
	addl	$5, %edi
	imull	%edi, %edi
.Ldone:
	movl	%edi, %eax
	retq
	.size	step, .-step
