; A path from the begin that returns without reaching __spread_region_end: the end does not
; post-dominate the begin, which is a compile error.
;
; RUN: not %opt -load-pass-plugin=%spread-pass -passes=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=ERR %s

; ERR: error: spread: cannot rewrite target update spread region at upd.c:40: a path from the region's begin leaves the function without reaching __spread_region_end

%struct.construct = type { ptr, i32, i32, i32, i32 }
@.str = private unnamed_addr constant [6 x i8] c"upd.c\00"
@c = internal constant %struct.construct { ptr @.str, i32 40, i32 5, i32 0, i32 0 }

define void @f(i32 noundef %n) {
entry:
  %slot = alloca ptr, align 8
  %r = call ptr @__spread_region_begin(ptr noundef @c, i64 noundef 0, i64 noundef 100, ptr noundef null, i32 noundef 0, i64 noundef 0)
  store ptr %r, ptr %slot, align 8
  %big = icmp sgt i32 %n, 5
  br i1 %big, label %out, label %cont

out:
  ret void

cont:
  %r1 = load ptr, ptr %slot, align 8
  call void @__spread_region_end(ptr noundef %r1)
  ret void
}

declare ptr @__spread_region_begin(ptr noundef, i64 noundef, i64 noundef, ptr noundef, i32 noundef, i64 noundef)
declare void @__spread_region_end(ptr noundef)
