; Every decision is a remark (pass name layout-opt); symbols the plan names
; but this module does not define are listed once, as a missed remark, never
; as a warning or an error; a plan entry that cannot be applied says why.
; RUN: rm -rf %t && split-file %s %t
; RUN: %opt -load-pass-plugin=%layoutopt -passes=layout-opt \
; RUN:   -layout-plan=%t/plan.yaml -pass-remarks=layout-opt \
; RUN:   -pass-remarks-missed=layout-opt -disable-output %t/a.ll 2>&1 \
; RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
; CHECK-DAG: remark: a.c:3:0: hot function 'hot1' placed in .text.hot, aligned to 4096 bytes, plan order 0 (start of the hot text region)
; CHECK-DAG: remark: a.c:4:0: cold function 'coldf' placed in .text.unlikely
; CHECK-DAG: remark: {{.*}}hot global 'counter' placed in .data.hot, plan order 0, aligned to 4096 bytes (start of the hot data region)
; CHECK-DAG: remark: {{.*}}hot global 'ptrs' placed in .data.rel.ro.hot, plan order 1
; CHECK-DAG: remark: {{.*}}global 'shared' aligned to 64 bytes and padded from 4 to 64 bytes so no other object shares its cache lines; reason: written by 2 threads
; CHECK-DAG: remark: {{.*}}global 'tls': hot placement not applied: it is thread-local
; CHECK-DAG: remark: {{.*}}global 'in_section': hot placement not applied: it has an explicit section
; CHECK-DAG: remark: {{.*}}global 'ro': false-sharing padding not applied: it is read-only
; CHECK-DAG: remark: {{.*}}3 of 11 plan entries are not defined in this module (expected when the program has several files, or a function was inlined everywhere): gone1, gone2, gone_global

; Only what was asked for: -pass-remarks alone shows no missed remarks.
; RUN: %opt -load-pass-plugin=%layoutopt -passes=layout-opt \
; RUN:   -layout-plan=%t/plan.yaml -pass-remarks=layout-opt \
; RUN:   -disable-output %t/a.ll 2>&1 | FileCheck %s --check-prefix=PASSED
; PASSED-NOT: not defined in this module
; PASSED-NOT: not applied

; The YAML optimisation record carries the same decisions.
; RUN: %opt -load-pass-plugin=%layoutopt -passes=layout-opt \
; RUN:   -layout-plan=%t/plan.yaml -pass-remarks-output=%t/r.yaml \
; RUN:   -disable-output %t/a.ll
; RUN: FileCheck %s --check-prefix=YAML < %t/r.yaml
; YAML:      --- !Passed
; YAML-NEXT: Pass: layout-opt
; YAML-NEXT: Name: HotFunction
; YAML:        - Function: hot1
; YAML:        - Align: '4096'
; YAML:      Name: HotGlobal
; YAML-NEXT: Function: hot1
; YAML:        - Global: counter
; YAML:      Name: FalseSharing
; YAML:        - NewSize: '64'
; YAML:      --- !Missed
; YAML-NEXT: Pass: layout-opt
; YAML-NEXT: Name: NotApplied
; YAML:      Name: PlanEntriesNotInModule
; YAML:        - Missing: '3'

;--- plan.yaml
keel-plan: 1
functions:
  - { name: hot1, class: hot, order: 0 }
  - { name: coldf, class: cold }
  - { name: gone1, class: hot, order: 1 }
  - { name: gone2, class: cold }
globals:
  - { name: counter, kind: data, order: 0 }
  - { name: ptrs, kind: rodata, order: 1 }
  - { name: tls, kind: data, order: 2 }
  - { name: in_section, kind: data, order: 3 }
  - { name: gone_global, kind: bss, order: 4 }
false-sharing:
  - { name: shared, align: 64, reason: "written by 2 threads" }
  - { name: ro, align: 64 }
;--- a.ll
source_filename = "a.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
@counter = global i32 5
@ptrs = constant [1 x ptr] [ptr @counter]
@tls = thread_local global i32 0
@in_section = global i32 1, section "mine"
@shared = global i32 0
@ro = constant i32 4
define i32 @hot1() !dbg !6 {
  %v = load i32, ptr @counter
  %w = load i32, ptr @shared
  %t = load i32, ptr @tls
  %s = load i32, ptr @in_section
  %r = load i32, ptr @ro
  ret i32 %v
}
define void @coldf() !dbg !7 { ret void }
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "a.c", directory: "/src")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 8, !"PIC Level", i32 2}
!5 = !DISubroutineType(types: !{})
!6 = distinct !DISubprogram(name: "hot1", scope: !1, file: !1, line: 3, scopeLine: 3, type: !5, unit: !0, spFlags: DISPFlagDefinition)
!7 = distinct !DISubprogram(name: "coldf", scope: !1, file: !1, line: 4, scopeLine: 4, type: !5, unit: !0, spFlags: DISPFlagDefinition)
