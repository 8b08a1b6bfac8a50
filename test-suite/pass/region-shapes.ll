; Region shapes beyond what clang emits at -O0: SSA handles (after mem2reg), begin and end
; in one block, a value computed in the region and used after it, a region inside a user
; loop, and a begin that is an invoke (C++ with cleanups in scope).
;
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -pass-remarks=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=REMARK %s

; REMARK-COUNT-4: remark: {{.*}}spread region at shapes.c:{{[0-9]+}} rewritten into per-device chunked launches
; REMARK-NOT: remark

%struct.construct = type { ptr, i32, i32, i32, i32 }
@.str = private unnamed_addr constant [9 x i8] c"shapes.c\00"
@c1 = internal constant %struct.construct { ptr @.str, i32 1, i32 1, i32 0, i32 0 }
@c2 = internal constant %struct.construct { ptr @.str, i32 2, i32 1, i32 0, i32 0 }
@c3 = internal constant %struct.construct { ptr @.str, i32 3, i32 1, i32 0, i32 0 }
@c4 = internal constant %struct.construct { ptr @.str, i32 4, i32 1, i32 0, i32 0 }
@loc = private constant i8 0
@id = private constant i8 0

; CHECK-LABEL: define i32 @one_block(
; CHECK:       entry:
; CHECK-NEXT:    %d.reg2mem = alloca i32
; CHECK-NEXT:    %r = call ptr @__spread_region_begin(ptr @c1,
; CHECK-NEXT:    br label %spread.chunk
; CHECK:       spread.chunk:
; CHECK-NEXT:    %spread.next = call i32 @__spread_chunk_next(ptr %r)
; CHECK:       spread.region:
; CHECK-NEXT:    %d = call i32 @__spread_chunk_device(ptr %r)
; CHECK-NEXT:    store i32 %d, ptr %d.reg2mem
; CHECK-NEXT:    [[D:%d.reload[0-9]*]] = load i32, ptr %d.reg2mem
; CHECK-NEXT:    %dev = sext i32 [[D]] to i64
; CHECK-NEXT:    %k = call i32 @__spread_target_kernel(ptr %r, ptr @loc, i64 %dev, i32 1, i32 0, ptr @id, ptr null)
; CHECK-NEXT:    br label %spread.chunk
; CHECK:       spread.end:
; CHECK-NEXT:    call void @__spread_region_end(ptr %r)
; CHECK-NEXT:    [[D2:%d.reload[0-9]*]] = load i32, ptr %d.reg2mem
; CHECK-NEXT:    ret i32 [[D2]]
define i32 @one_block() {
entry:
  %r = call ptr @__spread_region_begin(ptr @c1, i64 0, i64 64, ptr null, i32 0, i64 8)
  %d = call i32 @__spread_chunk_device(ptr %r)
  %dev = sext i32 %d to i64
  %k = call i32 @__tgt_target_kernel(ptr @loc, i64 %dev, i32 1, i32 0, ptr @id, ptr null)
  call void @__spread_region_end(ptr %r)
  ret i32 %d
}

; A spread region as the body of a user loop; the loop's phi stays outside the region.
; CHECK-LABEL: define void @in_loop(
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i32 [ 0, %entry ], [ %i.next, %spread.end ]
; CHECK-NEXT:    %r = call ptr @__spread_region_begin(ptr @c2,
; CHECK-NEXT:    br label %spread.chunk
; CHECK:       spread.chunk:
; CHECK-NEXT:    %spread.next = call i32 @__spread_chunk_next(ptr %r)
; CHECK-NEXT:    %spread.more = icmp ne i32 %spread.next, 0
; CHECK-NEXT:    br i1 %spread.more, label %spread.region, label %spread.end
; CHECK:       spread.region:
; CHECK-NEXT:    br i1 %c, label %then, label %join
; CHECK:       then:
; CHECK-NEXT:    call void @__spread_target_data_update_mapper(ptr %r, ptr @loc, i64 0, i32 0, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null)
; CHECK:       join:
; CHECK-NEXT:    br label %spread.chunk
; CHECK:       spread.end:
; CHECK-NEXT:    call void @__spread_region_end(ptr %r)
; CHECK-NEXT:    %i.next = add i32 %i, 1
define void @in_loop(i1 %c, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %join ]
  %r = call ptr @__spread_region_begin(ptr @c2, i64 0, i64 64, ptr null, i32 0, i64 0)
  br i1 %c, label %then, label %join
then:
  call void @__tgt_target_data_update_mapper(ptr @loc, i64 0, i32 0, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null)
  br label %join
join:
  call void @__spread_region_end(ptr %r)
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; An invoke begin: the loop starts on its normal edge; the unwind edge is untouched.
; CHECK-LABEL: define void @invoked(
; CHECK:         %r = invoke ptr @__spread_region_begin(ptr @c3,
; CHECK-NEXT:            to label %[[PRE:[^ ]+]] unwind label %lpad
; CHECK:       [[PRE]]:
; CHECK-NEXT:    br label %spread.chunk
; CHECK:       spread.chunk:
; CHECK-NEXT:    %spread.next = call i32 @__spread_chunk_next(ptr %r)
; CHECK-NEXT:    %spread.more = icmp ne i32 %spread.next, 0
; CHECK-NEXT:    br i1 %spread.more, label %spread.region, label %spread.end
; CHECK:       spread.region:
; CHECK-NEXT:    br label %cont
; CHECK:       cont:
; CHECK-NEXT:    invoke void @may_throw()
; CHECK:       done:
; CHECK-NEXT:    br label %spread.chunk
; CHECK:       spread.end:
; CHECK-NEXT:    call void @__spread_region_end(ptr %r)
define void @invoked() personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke ptr @__spread_region_begin(ptr @c3, i64 0, i64 64, ptr null, i32 0, i64 0)
          to label %cont unwind label %lpad
cont:
  invoke void @may_throw() to label %done unwind label %lpad
done:
  call void @__spread_region_end(ptr %r)
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}

; Paths that end in `unreachable` (abort in the region) do not need the end.
; CHECK-LABEL: define void @aborts(
; CHECK:       spread.region:
; CHECK:         call void @abort()
; CHECK-NEXT:    unreachable
; CHECK:       spread.end:
define void @aborts(i1 %bad) {
entry:
  %r = call ptr @__spread_region_begin(ptr @c4, i64 0, i64 64, ptr null, i32 0, i64 0)
  br i1 %bad, label %die, label %ok
die:
  call void @abort()
  unreachable
ok:
  call void @__spread_region_end(ptr %r)
  ret void
}

declare ptr @__spread_region_begin(ptr, i64, i64, ptr, i32, i64)
declare void @__spread_region_end(ptr)
declare i32 @__spread_chunk_device(ptr)
declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr)
declare void @__tgt_target_data_update_mapper(ptr, i64, i32, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @may_throw()
declare void @abort() noreturn
declare i32 @__gxx_personality_v0(...)
