; The inline fast path: without sampling, in an executable (or non-PIC)
; module, each instrumented access of 1, 2, 4 or 8 bytes first compares its
; line with its site's thread-local cache and, when the line matches and the
; slot's masks already hold the bytes, counts the access inline (reads,
; writes, the site's counter); otherwise it calls __keel_fs_access_cached
; with the cache to refill. Unaligned accesses also check that they stay in
; the line. Off with sampling, with -keel-fs-inline=0 and in shared-library
; (PIC, not PIE) modules, which keep the plain call.
; RUN: %opt -load-pass-plugin=%keel_lib/KeelFalseSharing.so -passes=keel-fs \
; RUN:   -keel-fs-summary -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
; RUN: %opt -load-pass-plugin=%keel_lib/KeelFalseSharing.so -passes=keel-fs \
; RUN:   -keel-fs-sample=4 -S %s | FileCheck %s --check-prefix=CALL
; RUN: %opt -load-pass-plugin=%keel_lib/KeelFalseSharing.so -passes=keel-fs \
; RUN:   -keel-fs-inline=0 -S %s | FileCheck %s --check-prefix=CALL
; RUN: sed -e 's/"PIE Level"/"PIC Level"/' %s | \
; RUN:   %opt -load-pass-plugin=%keel_lib/KeelFalseSharing.so -passes=keel-fs \
; RUN:   -S | FileCheck %s --check-prefix=CALL

; SUMMARY: keel-fs: {{.*}}: 4 accesses instrumented, 3 with the inline fast path

@g = global [4 x i32] zeroinitializer

; One cache per source site, local-exec, starting at a line that never matches.
; CHECK: @__keel_fs_cache = internal thread_local(localexec) global { i64, ptr, ptr } { i64 -1, ptr null, ptr null }
; CHECK: @__keel_fs_cache.{{[0-9]+}} = internal thread_local(localexec) global { i64, ptr, ptr } { i64 -1, ptr null, ptr null }

; CHECK-LABEL: define void @work(ptr %p, ptr %q, ptr %v)
define void @work(ptr %p, ptr %q, ptr %v) !dbg !5 {
; A read of 4 aligned bytes: compare the line, then the read mask.
; CHECK: %[[C:[0-9]+]] = call ptr @llvm.threadlocal.address.p0(ptr @__keel_fs_cache)
; CHECK-NEXT: %[[A:.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: %[[L:.*]] = lshr i64 %[[A]], 6
; CHECK-NEXT: %[[CL:.*]] = load i64, ptr %[[C]]
; CHECK-NEXT: %[[H:.*]] = icmp eq i64 %[[L]], %[[CL]]
; CHECK-NEXT: %[[O:.*]] = and i64 %[[A]], 63
; CHECK-NEXT: br i1 %[[H]], label %[[CHECK:.*]], label %[[SLOW:.*]], !dbg {{.*}}, !prof
; CHECK: [[CHECK]]:
; CHECK: %[[SLOT:.*]] = load ptr, ptr
; CHECK-NEXT: %[[BITS:.*]] = shl i64 15, %[[O]]
; CHECK-NEXT: getelementptr inbounds i8, ptr %[[SLOT]], i32 8
; CHECK-NEXT: %[[R:.*]] = load atomic i64, ptr {{.*}} monotonic
; CHECK-NEXT: %[[AND:.*]] = and i64 %[[R]], %[[BITS]]
; CHECK-NEXT: %[[K:.*]] = icmp eq i64 %[[AND]], %[[BITS]]
; CHECK-NEXT: br i1 %[[K]], label %[[COUNT:[^,]*]], label %[[SLOW]]
; Count: reads (offset 24) and the site's counter, no writes (offset 32).
; CHECK: [[COUNT]]:
; CHECK-NEXT: getelementptr inbounds i8, ptr %[[SLOT]], i32 24
; CHECK-NEXT: load atomic i64
; CHECK-NEXT: add i64 {{.*}}, 1
; CHECK-NEXT: store atomic i64
; CHECK-NOT: i32 32
; CHECK: load ptr, ptr
; CHECK-NEXT: load atomic i64
; CHECK-NEXT: add i64 {{.*}}, 1
; CHECK-NEXT: store atomic i64
; CHECK-NEXT: br label %[[CONT:[^,]*]]
; CHECK: [[SLOW]]:
; CHECK-NEXT: call void @__keel_fs_access_cached(ptr %p, i32 4, i32 0, ptr @__keel_fs_site, ptr %[[C]])
; CHECK-NEXT: br label %[[CONT]]
; CHECK: [[CONT]]:
; CHECK-NEXT: %x = load i32, ptr %p
  %x = load i32, ptr %p, align 4, !dbg !8

; `*q += x`, unaligned (align 1): one read-and-write record whose line check
; (after the load) also requires off + 4 <= 64 and whose mask is rmask & wmask; counts reads
; and writes.
; CHECK: %y = load i32, ptr %q, align 1
; CHECK: ptrtoint ptr %q to i64
; CHECK: %[[O2:.*]] = and i64 %{{.*}}, 63
; CHECK-NEXT: %[[END:.*]] = add i64 %[[O2]], 4
; CHECK-NEXT: %[[IN:.*]] = icmp ule i64 %[[END]], 64
; CHECK-NEXT: %keelfs.inside = and i1 %{{.*}}, %[[IN]]
; CHECK: load atomic i64, ptr {{.*}} monotonic
; CHECK: load atomic i64, ptr {{.*}} monotonic
; CHECK-NEXT: and i64
; CHECK-NEXT: and i64
; CHECK-NEXT: icmp eq
; CHECK: getelementptr inbounds i8, ptr %{{.*}}, i32 24
; CHECK: getelementptr inbounds i8, ptr %{{.*}}, i32 32
; CHECK: call void @__keel_fs_access_cached(ptr %q, i32 4, i32 3, ptr @__keel_fs_site.{{[0-9]+}}, ptr
; CHECK: keelfs.cont{{[0-9]+}}:
; CHECK-NEXT: store i32 %s, ptr %q, align 1
  %y = load i32, ptr %q, align 1, !dbg !9
  %s = add i32 %x, %y, !dbg !9
  store i32 %s, ptr %q, align 1, !dbg !9

; A write of 8 aligned bytes on the same site as the first read: the same
; cache.
; CHECK: call ptr @llvm.threadlocal.address.p0(ptr @__keel_fs_cache)
; CHECK: shl i64 255,
; CHECK: call void @__keel_fs_access_cached(ptr @g, i32 8, i32 1, ptr @__keel_fs_site, ptr
  store i64 0, ptr @g, align 8, !dbg !8

; 16 bytes: no inline path, the plain call.
; CHECK: call void @__keel_fs_access(ptr %v, i32 16, i32 0,
  %w = load <4 x i32>, ptr %v, align 16, !dbg !8
  ret void
}

; CALL-NOT: thread_local
; CALL-LABEL: define void @work
; CALL-NOT: threadlocal
; CALL: call void @__keel_fs_access(ptr %p, i32 4, i32 0,
; CALL-NEXT: %x = load i32, ptr %p
; CALL-NOT: threadlocal
; CALL-NOT: __keel_fs_access_cached
; CALL: call void @__keel_fs_access(ptr %q, i32 4, i32 3,
; CALL-NOT: threadlocal
; CALL-NOT: __keel_fs_access_cached
; CALL: ret void
; CALL-NOT: __keel_fs_access_cached

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "w.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"PIE Level", i32 2}
!5 = distinct !DISubprogram(name: "work", scope: !1, file: !1, line: 2, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 3, column: 5, scope: !5)
!9 = !DILocation(line: 4, column: 7, scope: !5)
