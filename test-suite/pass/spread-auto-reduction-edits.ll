; spread-auto on clang-19's reduction code, edited where C cannot reach (x86_64 device IR of
;   double sum(int n, const double *x) {
;     double s = 0;
;   #pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
;     for (int i = 0; i < n; i++)
;       s += x[i];
;     return s;
;   }
; at -O0). As clang wrote it, s (arg1) gets a reduce record.
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
; RUN:   -disable-output %s 2>&1 | FileCheck --check-prefix=OK %s
; OK: remark: <unknown>:0:0: kernel __omp_offloading_fe00_98e504_sum_l3 can be spread over devices: arg1:reduce(+, double) arg2:r[8*i, 8B] [sum, line 3]
;
; The teams function hands the parallel function s instead of x: the loop reads the reduction
; variable, which the runtime replaces by a copy per block.
; RUN: sed 's/ptr %%11, ptr %%57)/ptr %%11, ptr %%24)/' %s > %t.shared.ll
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks-missed=spread-auto \
; RUN:   -S %t.shared.ll -o %t.shared.out.ll 2>&1 | FileCheck --check-prefix=SHARED %s
; RUN: %opt -S %t.shared.ll | diff - %t.shared.out.ll
; SHARED: kernel __omp_offloading_fe00_98e504_sum_l3 runs on one device: a reduction variable (arg1) that the loop also accesses [sum, line 3]
;
; The parallel function combines with *, the teams function with +.
; RUN: sed 's/%%83 = fadd double %%81, %%82/%%83 = fmul double %%81, %%82/' %s > %t.mixed.ll
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks-missed=spread-auto \
; RUN:   -S %t.mixed.ll -o %t.mixed.out.ll 2>&1 | FileCheck --check-prefix=MIXED %s
; RUN: %opt -S %t.mixed.ll | diff - %t.mixed.out.ll
; MIXED: kernel __omp_offloading_fe00_98e504_sum_l3 runs on one device: a reduction the pass cannot follow (the teams and parallel regions combine differently) [sum, line 3]
;
; The teams function combines with -, which is none of the runtime's operators (OpenMP's - combines
; as +).
; RUN: sed 's/%%74 = fadd double %%72, %%73/%%74 = fsub double %%72, %%73/' %s > %t.sub.ll
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks-missed=spread-auto \
; RUN:   -S %t.sub.ll -o %t.sub.out.ll 2>&1 | FileCheck --check-prefix=SUB %s
; RUN: %opt -S %t.sub.ll | diff - %t.sub.out.ll
; SUB: kernel __omp_offloading_fe00_98e504_sum_l3 runs on one device: a reduction whose operator the pass cannot name (over double) [sum, line 3]

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%struct.ident_t = type { i32, i32, i32, i32, ptr }
%struct.__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }

@0 = private unnamed_addr constant [23 x i8] c";unknown;unknown;0;0;;\00", align 1
@1 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2050, i32 0, i32 22, ptr @0 }, align 8
@2 = private unnamed_addr constant %struct.ident_t { i32 0, i32 514, i32 0, i32 22, ptr @0 }, align 8
@.gomp_critical_user_.reduction.var = common global [8 x i32] zeroinitializer, align 8
@3 = private unnamed_addr constant %struct.ident_t { i32 0, i32 18, i32 0, i32 22, ptr @0 }, align 8
@4 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8
@.offloading.entry_name = internal unnamed_addr constant [36 x i8] c"__omp_offloading_fe00_98e504_sum_l3\00"
@.offloading.entry.__omp_offloading_fe00_98e504_sum_l3 = weak constant %struct.__tgt_offload_entry { ptr @__omp_offloading_fe00_98e504_sum_l3, ptr @.offloading.entry_name, i64 0, i32 0, i32 0 }, section "omp_offloading_entries", align 1

; Function Attrs: convergent noinline norecurse nounwind optnone uwtable
define weak_odr protected void @__omp_offloading_fe00_98e504_sum_l3(ptr noalias noundef %0, i64 noundef %1, ptr noundef nonnull align 8 dereferenceable(8) %2, ptr noundef %3) #0 {
  %5 = alloca ptr, align 8
  %6 = alloca i64, align 8
  %7 = alloca ptr, align 8
  %8 = alloca ptr, align 8
  %9 = alloca i64, align 8
  store ptr %0, ptr %5, align 8
  store i64 %1, ptr %6, align 8
  store ptr %2, ptr %7, align 8
  store ptr %3, ptr %8, align 8
  %10 = load ptr, ptr %7, align 8
  %11 = load i32, ptr %6, align 4
  store i32 %11, ptr %9, align 4
  %12 = load i64, ptr %9, align 8
  %13 = load ptr, ptr %8, align 8
  call void (ptr, i32, ptr, ...) @__kmpc_fork_teams(ptr @4, i32 3, ptr @__omp_offloading_fe00_98e504_sum_l3.omp_outlined, i64 %12, ptr %10, ptr %13)
  ret void
}

; Function Attrs: convergent noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e504_sum_l3.omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, ptr noundef nonnull align 8 dereferenceable(8) %3, ptr noundef %4) #0 {
  %6 = alloca ptr, align 8
  %7 = alloca ptr, align 8
  %8 = alloca i64, align 8
  %9 = alloca ptr, align 8
  %10 = alloca ptr, align 8
  %11 = alloca double, align 8
  %12 = alloca i32, align 4
  %13 = alloca i32, align 4
  %14 = alloca i32, align 4
  %15 = alloca i32, align 4
  %16 = alloca i32, align 4
  %17 = alloca i32, align 4
  %18 = alloca i32, align 4
  %19 = alloca i32, align 4
  %20 = alloca i32, align 4
  %21 = alloca i32, align 4
  %22 = alloca i64, align 8
  %23 = alloca [1 x ptr], align 8
  store ptr %0, ptr %6, align 8
  store ptr %1, ptr %7, align 8
  store i64 %2, ptr %8, align 8
  store ptr %3, ptr %9, align 8
  store ptr %4, ptr %10, align 8
  %24 = load ptr, ptr %9, align 8
  store double 0.000000e+00, ptr %11, align 8
  %25 = load i32, ptr %8, align 4
  store i32 %25, ptr %14, align 4
  %26 = load i32, ptr %14, align 4
  %27 = sub nsw i32 %26, 0
  %28 = sdiv i32 %27, 1
  %29 = sub nsw i32 %28, 1
  store i32 %29, ptr %15, align 4
  store i32 0, ptr %16, align 4
  %30 = load i32, ptr %14, align 4
  %31 = icmp slt i32 0, %30
  br i1 %31, label %32, label %66

32:                                               ; preds = %5
  store i32 0, ptr %17, align 4
  %33 = load i32, ptr %15, align 4
  store i32 %33, ptr %18, align 4
  store i32 1, ptr %19, align 4
  store i32 0, ptr %20, align 4
  %34 = load ptr, ptr %6, align 8
  %35 = load i32, ptr %34, align 4
  call void @__kmpc_for_static_init_4(ptr @1, i32 %35, i32 92, ptr %20, ptr %17, ptr %18, ptr %19, i32 1, i32 1)
  %36 = load i32, ptr %18, align 4
  %37 = load i32, ptr %15, align 4
  %38 = icmp sgt i32 %36, %37
  br i1 %38, label %39, label %41

39:                                               ; preds = %32
  %40 = load i32, ptr %15, align 4
  br label %43

41:                                               ; preds = %32
  %42 = load i32, ptr %18, align 4
  br label %43

43:                                               ; preds = %41, %39
  %44 = phi i32 [ %40, %39 ], [ %42, %41 ]
  store i32 %44, ptr %18, align 4
  %45 = load i32, ptr %17, align 4
  store i32 %45, ptr %12, align 4
  br label %46

46:                                               ; preds = %58, %43
  %47 = load i32, ptr %12, align 4
  %48 = load i32, ptr %18, align 4
  %49 = icmp sle i32 %47, %48
  br i1 %49, label %50, label %62

50:                                               ; preds = %46
  %51 = load i32, ptr %17, align 4
  %52 = zext i32 %51 to i64
  %53 = load i32, ptr %18, align 4
  %54 = zext i32 %53 to i64
  %55 = load i32, ptr %8, align 4
  store i32 %55, ptr %22, align 4
  %56 = load i64, ptr %22, align 8
  %57 = load ptr, ptr %10, align 8
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @4, i32 5, ptr @__omp_offloading_fe00_98e504_sum_l3.omp_outlined.omp_outlined, i64 %52, i64 %54, i64 %56, ptr %11, ptr %57)
  br label %58

58:                                               ; preds = %50
  %59 = load i32, ptr %12, align 4
  %60 = load i32, ptr %19, align 4
  %61 = add nsw i32 %59, %60
  store i32 %61, ptr %12, align 4
  br label %46

62:                                               ; preds = %46
  br label %63

63:                                               ; preds = %62
  %64 = load ptr, ptr %6, align 8
  %65 = load i32, ptr %64, align 4
  call void @__kmpc_for_static_fini(ptr @1, i32 %65)
  br label %66

66:                                               ; preds = %63, %5
  %67 = getelementptr inbounds [1 x ptr], ptr %23, i64 0, i64 0
  store ptr %11, ptr %67, align 8
  %68 = load ptr, ptr %6, align 8
  %69 = load i32, ptr %68, align 4
  %70 = call i32 @__kmpc_reduce_nowait(ptr @3, i32 %69, i32 1, i64 8, ptr %23, ptr @__omp_offloading_fe00_98e504_sum_l3.omp_outlined.omp.reduction.reduction_func, ptr @.gomp_critical_user_.reduction.var)
  switch i32 %70, label %78 [
    i32 1, label %71
    i32 2, label %75
  ]

71:                                               ; preds = %66
  %72 = load double, ptr %24, align 8
  %73 = load double, ptr %11, align 8
  %74 = fadd double %72, %73
  store double %74, ptr %24, align 8
  call void @__kmpc_end_reduce_nowait(ptr @3, i32 %69, ptr @.gomp_critical_user_.reduction.var)
  br label %78

75:                                               ; preds = %66
  %76 = load double, ptr %11, align 8
  %77 = atomicrmw fadd ptr %24, double %76 monotonic, align 8
  br label %78

78:                                               ; preds = %75, %71, %66
  ret void
}

; Function Attrs: nounwind
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32) #1

; Function Attrs: convergent noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e504_sum_l3.omp_outlined.omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, i64 noundef %3, i64 noundef %4, ptr noundef nonnull align 8 dereferenceable(8) %5, ptr noundef %6) #0 {
  %8 = alloca ptr, align 8
  %9 = alloca ptr, align 8
  %10 = alloca i64, align 8
  %11 = alloca i64, align 8
  %12 = alloca i64, align 8
  %13 = alloca ptr, align 8
  %14 = alloca ptr, align 8
  %15 = alloca i32, align 4
  %16 = alloca i32, align 4
  %17 = alloca i32, align 4
  %18 = alloca i32, align 4
  %19 = alloca i32, align 4
  %20 = alloca i32, align 4
  %21 = alloca i32, align 4
  %22 = alloca i32, align 4
  %23 = alloca i32, align 4
  %24 = alloca double, align 8
  %25 = alloca i32, align 4
  %26 = alloca [1 x ptr], align 8
  store ptr %0, ptr %8, align 8
  store ptr %1, ptr %9, align 8
  store i64 %2, ptr %10, align 8
  store i64 %3, ptr %11, align 8
  store i64 %4, ptr %12, align 8
  store ptr %5, ptr %13, align 8
  store ptr %6, ptr %14, align 8
  %27 = load ptr, ptr %13, align 8
  %28 = load i32, ptr %12, align 4
  store i32 %28, ptr %17, align 4
  %29 = load i32, ptr %17, align 4
  %30 = sub nsw i32 %29, 0
  %31 = sdiv i32 %30, 1
  %32 = sub nsw i32 %31, 1
  store i32 %32, ptr %18, align 4
  store i32 0, ptr %19, align 4
  %33 = load i32, ptr %17, align 4
  %34 = icmp slt i32 0, %33
  br i1 %34, label %35, label %88

35:                                               ; preds = %7
  store i32 0, ptr %20, align 4
  %36 = load i32, ptr %18, align 4
  store i32 %36, ptr %21, align 4
  %37 = load i64, ptr %10, align 8
  %38 = trunc i64 %37 to i32
  %39 = load i64, ptr %11, align 8
  %40 = trunc i64 %39 to i32
  store i32 %38, ptr %20, align 4
  store i32 %40, ptr %21, align 4
  store i32 1, ptr %22, align 4
  store i32 0, ptr %23, align 4
  store double 0.000000e+00, ptr %24, align 8
  %41 = load ptr, ptr %8, align 8
  %42 = load i32, ptr %41, align 4
  call void @__kmpc_for_static_init_4(ptr @2, i32 %42, i32 34, ptr %23, ptr %20, ptr %21, ptr %22, i32 1, i32 1)
  %43 = load i32, ptr %21, align 4
  %44 = load i32, ptr %18, align 4
  %45 = icmp sgt i32 %43, %44
  br i1 %45, label %46, label %48

46:                                               ; preds = %35
  %47 = load i32, ptr %18, align 4
  br label %50

48:                                               ; preds = %35
  %49 = load i32, ptr %21, align 4
  br label %50

50:                                               ; preds = %48, %46
  %51 = phi i32 [ %47, %46 ], [ %49, %48 ]
  store i32 %51, ptr %21, align 4
  %52 = load i32, ptr %20, align 4
  store i32 %52, ptr %15, align 4
  br label %53

53:                                               ; preds = %69, %50
  %54 = load i32, ptr %15, align 4
  %55 = load i32, ptr %21, align 4
  %56 = icmp sle i32 %54, %55
  br i1 %56, label %57, label %72

57:                                               ; preds = %53
  %58 = load i32, ptr %15, align 4
  %59 = mul nsw i32 %58, 1
  %60 = add nsw i32 0, %59
  store i32 %60, ptr %25, align 4
  %61 = load ptr, ptr %14, align 8
  %62 = load i32, ptr %25, align 4
  %63 = sext i32 %62 to i64
  %64 = getelementptr inbounds double, ptr %61, i64 %63
  %65 = load double, ptr %64, align 8
  %66 = load double, ptr %24, align 8
  %67 = fadd double %66, %65
  store double %67, ptr %24, align 8
  br label %68

68:                                               ; preds = %57
  br label %69

69:                                               ; preds = %68
  %70 = load i32, ptr %15, align 4
  %71 = add nsw i32 %70, 1
  store i32 %71, ptr %15, align 4
  br label %53

72:                                               ; preds = %53
  br label %73

73:                                               ; preds = %72
  %74 = load ptr, ptr %8, align 8
  %75 = load i32, ptr %74, align 4
  call void @__kmpc_for_static_fini(ptr @2, i32 %75)
  %76 = getelementptr inbounds [1 x ptr], ptr %26, i64 0, i64 0
  store ptr %24, ptr %76, align 8
  %77 = load ptr, ptr %8, align 8
  %78 = load i32, ptr %77, align 4
  %79 = call i32 @__kmpc_reduce_nowait(ptr @3, i32 %78, i32 1, i64 8, ptr %26, ptr @__omp_offloading_fe00_98e504_sum_l3.omp_outlined.omp_outlined.omp.reduction.reduction_func, ptr @.gomp_critical_user_.reduction.var)
  switch i32 %79, label %87 [
    i32 1, label %80
    i32 2, label %84
  ]

80:                                               ; preds = %73
  %81 = load double, ptr %27, align 8
  %82 = load double, ptr %24, align 8
  %83 = fadd double %81, %82
  store double %83, ptr %27, align 8
  call void @__kmpc_end_reduce_nowait(ptr @3, i32 %78, ptr @.gomp_critical_user_.reduction.var)
  br label %87

84:                                               ; preds = %73
  %85 = load double, ptr %24, align 8
  %86 = atomicrmw fadd ptr %27, double %85 monotonic, align 8
  br label %87

87:                                               ; preds = %84, %80, %73
  br label %88

88:                                               ; preds = %87, %7
  ret void
}

; Function Attrs: nounwind
declare void @__kmpc_for_static_fini(ptr, i32) #1

; Function Attrs: convergent noinline norecurse nounwind uwtable
define internal void @__omp_offloading_fe00_98e504_sum_l3.omp_outlined.omp_outlined.omp.reduction.reduction_func(ptr noundef %0, ptr noundef %1) #2 {
  %3 = alloca ptr, align 8
  %4 = alloca ptr, align 8
  store ptr %0, ptr %3, align 8
  store ptr %1, ptr %4, align 8
  %5 = load ptr, ptr %3, align 8
  %6 = load ptr, ptr %4, align 8
  %7 = getelementptr inbounds [1 x ptr], ptr %6, i64 0, i64 0
  %8 = load ptr, ptr %7, align 8
  %9 = getelementptr inbounds [1 x ptr], ptr %5, i64 0, i64 0
  %10 = load ptr, ptr %9, align 8
  %11 = load double, ptr %10, align 8
  %12 = load double, ptr %8, align 8
  %13 = fadd double %11, %12
  store double %13, ptr %10, align 8
  ret void
}

; Function Attrs: convergent nounwind
declare i32 @__kmpc_reduce_nowait(ptr, i32, i32, i64, ptr, ptr, ptr) #3

; Function Attrs: convergent nounwind
declare void @__kmpc_end_reduce_nowait(ptr, i32, ptr) #3

; Function Attrs: nounwind
declare !callback !8 void @__kmpc_fork_call(ptr, i32, ptr, ...) #1

; Function Attrs: convergent noinline norecurse nounwind uwtable
define internal void @__omp_offloading_fe00_98e504_sum_l3.omp_outlined.omp.reduction.reduction_func(ptr noundef %0, ptr noundef %1) #2 {
  %3 = alloca ptr, align 8
  %4 = alloca ptr, align 8
  store ptr %0, ptr %3, align 8
  store ptr %1, ptr %4, align 8
  %5 = load ptr, ptr %3, align 8
  %6 = load ptr, ptr %4, align 8
  %7 = getelementptr inbounds [1 x ptr], ptr %6, i64 0, i64 0
  %8 = load ptr, ptr %7, align 8
  %9 = getelementptr inbounds [1 x ptr], ptr %5, i64 0, i64 0
  %10 = load ptr, ptr %9, align 8
  %11 = load double, ptr %10, align 8
  %12 = load double, ptr %8, align 8
  %13 = fadd double %11, %12
  store double %13, ptr %10, align 8
  ret void
}

; Function Attrs: nounwind
declare !callback !8 void @__kmpc_fork_teams(ptr, i32, ptr, ...) #1

attributes #0 = { convergent noinline norecurse nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nounwind }
attributes #2 = { convergent noinline norecurse nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { convergent nounwind }

!omp_offload.info = !{!0}
!llvm.module.flags = !{!1, !2, !3, !4, !5, !6}
!llvm.ident = !{!7}

!0 = !{i32 0, i32 65024, i32 10020100, !"sum", i32 3, i32 0, i32 0}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 7, !"openmp", i32 51}
!3 = !{i32 7, !"openmp-device", i32 51}
!4 = !{i32 8, !"PIC Level", i32 2}
!5 = !{i32 7, !"uwtable", i32 2}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!8 = !{!9}
!9 = !{i64 2, i64 -1, i64 -1, i1 true}
