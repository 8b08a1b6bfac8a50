; Device modules (module flag "openmp-device") are never rewritten, even if they contain
; region markers: the pass only works on host modules (docs/spread-abi.md §3).
;
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -pass-remarks=spread -S %s 2>&1 | FileCheck %s

; CHECK-NOT:  remark
; CHECK-LABEL: define void @f(
; CHECK-NEXT:   %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 8, ptr null, i32 0, i64 0)
; CHECK-NEXT:   %k = call i32 @__tgt_target_kernel(ptr null, i64 0, i32 1, i32 0, ptr null, ptr null)
; CHECK-NEXT:   call void @__spread_region_end(ptr %r)
; CHECK-NEXT:   ret void
; CHECK-NOT:  __spread_chunk_next
; CHECK-NOT:  __spread_target_kernel

%struct.construct = type { ptr, i32, i32, i32, i32 }
@.str = private unnamed_addr constant [6 x i8] c"dev.c\00"
@c = internal constant %struct.construct { ptr @.str, i32 3, i32 1, i32 0, i32 0 }

define void @f() {
  %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 8, ptr null, i32 0, i64 0)
  %k = call i32 @__tgt_target_kernel(ptr null, i64 0, i32 1, i32 0, ptr null, ptr null)
  call void @__spread_region_end(ptr %r)
  ret void
}

declare ptr @__spread_region_begin(ptr, i64, i64, ptr, i32, i64)
declare void @__spread_region_end(ptr)
declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr)

!llvm.module.flags = !{!0, !1}
!0 = !{i32 7, !"openmp", i32 51}
!1 = !{i32 7, !"openmp-device", i32 51}
