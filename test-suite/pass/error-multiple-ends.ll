; Two __spread_region_end calls for one begin: a compile error.
;
; RUN: not %opt -load-pass-plugin=%spread-pass -passes=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=ERR %s

; ERR: error: spread: cannot rewrite target enter data spread region at multi.c:7: 2 calls to __spread_region_end end this region; a region must have exactly one

%struct.construct = type { ptr, i32, i32, i32, i32 }
@.str = private unnamed_addr constant [8 x i8] c"multi.c\00"
@c = internal constant %struct.construct { ptr @.str, i32 7, i32 3, i32 0, i32 0 }

define void @f(i1 %c) {
entry:
  %r = call ptr @__spread_region_begin(ptr @c, i64 0, i64 100, ptr null, i32 0, i64 0)
  br i1 %c, label %a, label %b
a:
  call void @__spread_region_end(ptr %r)
  br label %done
b:
  call void @__spread_region_end(ptr %r)
  br label %done
done:
  ret void
}

declare ptr @__spread_region_begin(ptr, i64, i64, ptr, i32, i64)
declare void @__spread_region_end(ptr)
