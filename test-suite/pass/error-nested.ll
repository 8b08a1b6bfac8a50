; Overlapping regions (a begin between another region's begin and end) are a compile error.
;
; RUN: not %opt -load-pass-plugin=%spread-pass -passes=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=ERR %s

; ERR: error: spread: cannot rewrite target spread region at nest.c:3: another spread region begins before this one ends

%struct.construct = type { ptr, i32, i32, i32, i32 }
@.str = private unnamed_addr constant [7 x i8] c"nest.c\00"
@outer = internal constant %struct.construct { ptr @.str, i32 3, i32 1, i32 0, i32 0 }
@inner = internal constant %struct.construct { ptr @.str, i32 5, i32 1, i32 0, i32 0 }

define void @f() {
  %r = call ptr @__spread_region_begin(ptr @outer, i64 0, i64 100, ptr null, i32 0, i64 0)
  %s = call ptr @__spread_region_begin(ptr @inner, i64 0, i64 100, ptr null, i32 0, i64 0)
  call void @__spread_region_end(ptr %s)
  call void @__spread_region_end(ptr %r)
  ret void
}

declare ptr @__spread_region_begin(ptr, i64, i64, ptr, i32, i64)
declare void @__spread_region_end(ptr)
