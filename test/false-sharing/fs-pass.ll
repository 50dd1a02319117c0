; KeelFalseSharing.so instruments loads, stores and atomics on memory that
; may be shared (globals, pointers), not stack slots, thread-locals or
; constants; passes the size, read/write and a source site; adds a
; constructor that tells the runtime the sampling period; and honours
; -keel-fs-functions. (The inline fast path, on by default without
; sampling, is tested in fs-inline.ll; -keel-fs-inline=0 turns it off.)
; RUN: %opt -load-pass-plugin=%keel_lib/KeelFalseSharing.so -passes=keel-fs \
; RUN:   -keel-fs-sample=8 -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%keel_lib/KeelFalseSharing.so -passes=keel-fs \
; RUN:   -keel-fs-functions='^only' -keel-fs-inline=0 -S %s | FileCheck %s --check-prefix=FILTER

@g = global [4 x i32] zeroinitializer
@tls = thread_local global i32 0
@k = constant i32 7

; CHECK: @__keel_fs_site = private constant { ptr, ptr, i32, i32 } { ptr @__keel_fs_str{{.*}}, ptr @__keel_fs_str{{.*}}, i32 3, i32 5 }
; CHECK: @llvm.global_ctors = appending global {{.*}} @__keel_fs_module_init

; CHECK-LABEL: define void @work(ptr %p)
define void @work(ptr %p) !dbg !5 {
  %a = alloca i32
  store i32 1, ptr %a
; CHECK-NOT: call void @__keel_fs_access(ptr %a
  %x = load i32, ptr %p, !dbg !8
; CHECK: call void @__keel_fs_access(ptr %p, i32 4, i32 0, ptr @__keel_fs_site)
; CHECK-NEXT: %x = load i32, ptr %p
  %e = getelementptr [4 x i32], ptr @g, i64 0, i64 2
  store i64 0, ptr %e, !dbg !8
; CHECK: call void @__keel_fs_access(ptr %e, i32 8, i32 1, ptr @__keel_fs_site)
  %o = atomicrmw add ptr @g, i32 1 seq_cst, !dbg !8
; CHECK: call void @__keel_fs_access(ptr @g, i32 4, i32 3, ptr @__keel_fs_site)
  store i32 %x, ptr @tls
  %c = load i32, ptr @k
; CHECK-NOT: @__keel_fs_access(ptr @tls
; CHECK-NOT: @__keel_fs_access(ptr @k
  ret void
}

define void @only_this(ptr %p) {
  store i32 0, ptr %p
  ret void
}
; CHECK-LABEL: define void @only_this
; CHECK: call void @__keel_fs_access(ptr %p, i32 4, i32 1, ptr @__keel_fs_site{{.*}})

declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
define ptr @alloc(i64 %n) {
  %a = call ptr @malloc(i64 %n)
  %b = call ptr @calloc(i64 %n, i64 8)
  ret ptr %b
}
; CHECK-LABEL: define ptr @alloc(i64 %n)
; CHECK: %a = call ptr @malloc(i64 %n)
; CHECK-NEXT: call void @__keel_fs_alloc(ptr %a, i64 %n, ptr @__keel_fs_site
; CHECK: %b = call ptr @calloc(i64 %n, i64 8)
; CHECK-NEXT: %[[BYTES:.*]] = mul i64 %n, 8
; CHECK-NEXT: call void @__keel_fs_alloc(ptr %b, i64 %[[BYTES]], ptr @__keel_fs_site

; CHECK-LABEL: define internal void @__keel_fs_module_init()
; CHECK: call void @__keel_fs_init(i32 8)

; FILTER-LABEL: define void @work
; FILTER-NOT: __keel_fs_access
; FILTER-LABEL: define void @only_this
; FILTER: call void @__keel_fs_access(ptr %p, i32 4, i32 1,
; FILTER: call void @__keel_fs_init(i32 1)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "w.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "work", scope: !1, file: !1, line: 2, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 3, column: 5, scope: !5)

; Running the pass twice instruments once (an LTO back end after a compile
; that already instrumented).
; RUN: %opt -load-pass-plugin=%keel_lib/KeelFalseSharing.so -passes='keel-fs,keel-fs' \
; RUN:   -keel-fs-inline=0 -S %s | FileCheck %s --check-prefix=TWICE
; TWICE-LABEL: define void @work
; TWICE: call void @__keel_fs_access(ptr %p,
; TWICE-NEXT: %x = load i32, ptr %p
