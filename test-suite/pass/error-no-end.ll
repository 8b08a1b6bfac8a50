; A region whose __spread_region_end is not in the same function is a compile error naming
; the construct (file and line from its __spread_construct_t).
;
; RUN: not %opt -load-pass-plugin=%spread-pass -passes=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=ERR %s

; ERR: error: spread: cannot rewrite target spread region at err.c:12: no matching __spread_region_end in the same function

%struct.construct = type { ptr, i32, i32, i32, i32 }
@.str = private unnamed_addr constant [6 x i8] c"err.c\00"
@c = internal constant %struct.construct { ptr @.str, i32 12, i32 1, i32 0, i32 0 }

; The handle escapes into another function, which ends the region.
define void @begins() {
  %slot = alloca ptr, align 8
  %r = call ptr @__spread_region_begin(ptr noundef @c, i64 noundef 0, i64 noundef 100, ptr noundef null, i32 noundef 0, i64 noundef 0)
  store ptr %r, ptr %slot, align 8
  %r1 = load ptr, ptr %slot, align 8
  call void @ends(ptr noundef %r1)
  ret void
}

define void @ends(ptr noundef %r) {
  call void @__spread_region_end(ptr noundef %r)
  ret void
}

declare ptr @__spread_region_begin(ptr noundef, i64 noundef, i64 noundef, ptr noundef, i32 noundef, i64 noundef)
declare void @__spread_region_end(ptr noundef)
