; The plan's decisions as IR: section prefixes, alignment, region heads,
; false-sharing padding, plan order, locals matched by file, ThinLTO-promoted
; names, and symbols the plan does not name left untouched.
; RUN: rm -rf %t && split-file %s %t
; RUN: %opt -load-pass-plugin=%layoutopt -passes=layout-opt \
; RUN:   -layout-plan=%t/plan.yaml -S %t/a.ll -o - | FileCheck %s
; The pass is idempotent: running it twice (ThinLTO pre-link, then back end)
; gives the same module.
; RUN: %opt -load-pass-plugin=%layoutopt -passes=layout-opt \
; RUN:   -layout-plan=%t/plan.yaml -S %t/a.ll -o %t/once.ll
; RUN: %opt -load-pass-plugin=%layoutopt -passes=layout-opt,layout-opt \
; RUN:   -layout-plan=%t/plan.yaml -S %t/a.ll -o %t/twice.ll
; RUN: diff %t/once.ll %t/twice.ll
; Without a plan the pass changes nothing.
; RUN: %opt -load-pass-plugin=%layoutopt -passes=layout-opt -S %t/a.ll -o %t/none.ll
; RUN: %opt -S %t/a.ll -o %t/orig.ll
; RUN: diff %t/orig.ll %t/none.ll

; Globals: padded candidates stay in place (big_shared is already 128
; bytes: aligned, not padded; weak_shared may be replaced at link time:
; aligned, not padded), untouched ones unchanged,
; hot ones moved to the end in plan order (table 0, counter 1, zeros 2).
; CHECK:      @shared = global { [3 x i32], [52 x i8] } zeroinitializer, align 64{{$}}
; CHECK-NEXT: @other = global i32 1{{$}}
; CHECK-NEXT: @big_shared = global [32 x i32] zeroinitializer, align 64{{$}}
; CHECK-NEXT: @weak_shared = weak global i32 0, align 64{{$}}
; CHECK-NEXT: @cold_static = internal global i32 3{{$}}
; CHECK-NEXT: @table = constant [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 4096, !section_prefix ![[HOT:[0-9]+]]
; CHECK-NEXT: @counter = global i32 5, align 4096, !section_prefix ![[HOT]]
; CHECK-NEXT: @zeros = global [100 x i32] zeroinitializer, align 4096, !section_prefix ![[HOT]]
; CHECK-NEXT: @warm_data = global i32 9, !section_prefix ![[HOT]]

; Functions: cold and untouched ones stay; hot ones move to plan order.
; CHECK:      define void @coldf() !section_prefix ![[COLD:[0-9]+]] {
; CHECK:      define internal void @other_file_helper() {
; CHECK:      define void @untouched() {
; CHECK:      define void @warmf() {
; CHECK:      define i32 @hot1() align 4096 !section_prefix ![[HOT]] {
; CHECK:      define i32 @hot2() align 64 !section_prefix ![[HOT]] {
; CHECK:      define internal i32 @helper() align 32 !section_prefix ![[HOT]] {
; CHECK:      define hidden i32 @promoted.llvm.12345() align 128 !section_prefix ![[HOT]] {
; CHECK:      define i32 @already_aligned() align 256 !section_prefix ![[HOT]] {
; CHECK: ![[HOT]] = !{!"section_prefix", !"hot"}
; CHECK: ![[COLD]] = !{!"section_prefix", !"unlikely"}

;--- plan.yaml
keel-plan: 1
function-align: 128
functions:
  - { name: hot2, class: hot, order: 1, align: 64 }
  - { name: hot1, class: hot, order: 0, align: 64 }
  - { name: helper, file: a.c, class: hot, order: 2, align: 32 }
  - { name: other_file_helper, file: b.c, class: hot, order: 3 }
  - { name: promoted, file: src/a.c, class: hot, order: 4 }
  - { name: already_aligned, class: hot, order: 5, align: 16 }
  - { name: coldf, class: cold }
  - { name: warmf, class: warm }
globals:
  - { name: table, kind: rodata, order: 0 }
  - { name: counter, kind: data, order: 1 }
  - { name: zeros, kind: bss, order: 2 }
  - { name: warm_data, kind: data, order: 3 }
false-sharing:
  - { name: shared, align: 64 }
  - { name: big_shared, align: 64 }
  - { name: weak_shared, align: 64 }
;--- a.ll
source_filename = "/home/me/src/a.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
@counter = global i32 5
@zeros = global [100 x i32] zeroinitializer
@table = constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]
@shared = global [3 x i32] zeroinitializer
@other = global i32 1
@warm_data = global i32 9
@big_shared = global [32 x i32] zeroinitializer
@weak_shared = weak global i32 0
@cold_static = internal global i32 3
define void @coldf() { ret void }
define i32 @hot2() {
  %v = load i32, ptr @shared
  %w = load i32, ptr @big_shared
  %x = add i32 %v, %w
  ret i32 %x
}
define internal i32 @helper() { ret i32 1 }
define internal void @other_file_helper() { ret void }
define hidden i32 @promoted.llvm.12345() { ret i32 2 }
define i32 @already_aligned() align 256 { ret i32 3 }
define i32 @hot1() {
  %v = call i32 @helper()
  %w = load i32, ptr @counter
  %x = add i32 %v, %w
  call void @other_file_helper()
  ret i32 %x
}
define void @untouched() { ret void }
define void @warmf() { ret void }
