; A `target spread ... nowait` region (docs/spread-abi.md §2): clang puts the launch in a
; target task, so the pass only builds the chunk loop (one task per chunk); the launch
; inside the outlined task entry is left to the runtime as it is.
;
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -pass-remarks=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=REMARK %s

; REMARK: remark: {{.*}}spread region at nowait.c:7 rewritten into per-device chunked launches (0 launches, 0 data transfers) plus 1 target task per chunk

; CHECK-LABEL: define dso_local void @scale(
; CHECK:      [[R:%[0-9]+]] = call ptr @__spread_region_begin(ptr noundef @scale.__spread_c_3,
; CHECK-NEXT: br label %spread.chunk
; CHECK:      spread.chunk:
; CHECK-NEXT:   %spread.next = call i32 @__spread_chunk_next(ptr [[R]])
; CHECK-NEXT:   %spread.more = icmp ne i32 %spread.next, 0
; CHECK-NEXT:   br i1 %spread.more, label %spread.region, label %spread.end
; CHECK:      spread.region:
; CHECK:        call ptr @__kmpc_omp_target_task_alloc(
; CHECK:        call i32 @__kmpc_omp_task_with_deps(
; CHECK:        br label %spread.chunk
; CHECK:      spread.end:
; CHECK-NEXT:   call void @__spread_region_end(ptr noundef [[R]])
; CHECK-NEXT:   call i32 @__kmpc_omp_taskwait(
; The launch in the task is untouched.
; CHECK-LABEL: define internal void @.omp_outlined.(
; CHECK-NOT:   __spread_
; CHECK:       call i32 @__tgt_target_kernel(
; CHECK-NOT:   __spread_target_kernel
;
; Generated from this C (with the __spread_* prototypes of docs/spread-abi.md §1) by
;   clang-19 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-host-only \
;     -S -emit-llvm -Xclang -disable-llvm-passes
;
;   void scale(int N, double *A) {
;     {
;       static const __spread_construct_t __spread_c_3 = { "nowait.c", 7, 1, 1, 0 };
;       __spread_region_t *__spread_r_3 = __spread_region_begin(&__spread_c_3, (0), (N), 0, 0, (0));
;       {
;         const int64_t omp_spread_start = __spread_chunk_start(__spread_r_3);
;         const int64_t omp_spread_size = __spread_chunk_size(__spread_r_3);
;         #pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_3)) nowait \
;                 depend(inout: A[omp_spread_start]) map(tofrom: A[omp_spread_start:omp_spread_size])
;         for (int64_t i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) A[i] *= 2.0;
;       }
;       __spread_region_end(__spread_r_3);
;     }
;     #pragma omp taskwait
;   }

source_filename = "nowait.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.__spread_construct_t = type { ptr, i32, i32, i32, i32 }
%struct.ident_t = type { i32, i32, i32, i32, ptr }
%struct.__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }
%struct.anon = type { i64, i64, ptr, i32 }
%struct.kmp_depend_info = type { i64, i64, i8 }
%struct.kmp_task_t_with_privates = type { %struct.kmp_task_t, %struct..kmp_privates.t }
%struct.kmp_task_t = type { ptr, ptr, i32, %union.kmp_cmplrdata_t, %union.kmp_cmplrdata_t }
%union.kmp_cmplrdata_t = type { ptr }
%struct..kmp_privates.t = type { [3 x ptr], [3 x ptr], [3 x i64], i64, i64 }
%struct.__tgt_kernel_arguments = type { i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, [3 x i32], [3 x i32], i32 }

@scale.__spread_c_3 = internal constant %struct.__spread_construct_t { ptr @.str, i32 7, i32 1, i32 1, i32 0 }, align 8
@.str = private unnamed_addr constant [9 x i8] c"nowait.c\00", align 1
@0 = private unnamed_addr constant [23 x i8] c";unknown;unknown;0;0;;\00", align 1
@1 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2050, i32 0, i32 22, ptr @0 }, align 8
@2 = private unnamed_addr constant %struct.ident_t { i32 0, i32 514, i32 0, i32 22, ptr @0 }, align 8
@3 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8
@.__omp_offloading_fe00_98e8eb_scale_l9.region_id = weak constant i8 0
@.offload_sizes = private unnamed_addr constant [3 x i64] [i64 8, i64 8, i64 0]
@.offload_maptypes = private unnamed_addr constant [3 x i64] [i64 800, i64 800, i64 35]
@.offloading.entry_name = internal unnamed_addr constant [38 x i8] c"__omp_offloading_fe00_98e8eb_scale_l9\00"
@.offloading.entry.__omp_offloading_fe00_98e8eb_scale_l9 = weak constant %struct.__tgt_offload_entry { ptr @.__omp_offloading_fe00_98e8eb_scale_l9.region_id, ptr @.offloading.entry_name, i64 0, i32 0, i32 0 }, section "omp_offloading_entries", align 1

; Function Attrs: noinline nounwind optnone uwtable
define dso_local void @scale(i32 noundef %0, ptr noundef %1) #0 {
  %3 = alloca i32, align 4
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i64, align 8
  %7 = alloca i64, align 8
  %8 = alloca i32, align 4
  %9 = alloca i64, align 8
  %10 = alloca i64, align 8
  %11 = alloca [3 x ptr], align 8
  %12 = alloca [3 x ptr], align 8
  %13 = alloca [3 x ptr], align 8
  %14 = alloca [3 x i64], align 8
  %15 = alloca %struct.anon, align 8
  %16 = alloca [1 x %struct.kmp_depend_info], align 8
  %17 = alloca i64, align 8
  %18 = call i32 @__kmpc_global_thread_num(ptr @3)
  store i32 %0, ptr %3, align 4
  store ptr %1, ptr %4, align 8
  %19 = load i32, ptr %3, align 4
  %20 = sext i32 %19 to i64
  %21 = call ptr @__spread_region_begin(ptr noundef @scale.__spread_c_3, i64 noundef 0, i64 noundef %20, ptr noundef null, i32 noundef 0, i64 noundef 0)
  store ptr %21, ptr %5, align 8
  %22 = load ptr, ptr %5, align 8
  %23 = call i64 @__spread_chunk_start(ptr noundef %22)
  store i64 %23, ptr %6, align 8
  %24 = load ptr, ptr %5, align 8
  %25 = call i64 @__spread_chunk_size(ptr noundef %24)
  store i64 %25, ptr %7, align 8
  %26 = load ptr, ptr %5, align 8
  %27 = call i32 @__spread_chunk_device(ptr noundef %26)
  store i32 %27, ptr %8, align 4
  %28 = load i64, ptr %7, align 8
  store i64 %28, ptr %9, align 8
  %29 = load i64, ptr %9, align 8
  %30 = load i64, ptr %6, align 8
  store i64 %30, ptr %10, align 8
  %31 = load i64, ptr %10, align 8
  %32 = load ptr, ptr %4, align 8
  %33 = load ptr, ptr %4, align 8
  %34 = load i64, ptr %6, align 8
  %35 = load ptr, ptr %4, align 8
  %36 = getelementptr inbounds double, ptr %35, i64 %34
  %37 = load i64, ptr %7, align 8
  %38 = mul nuw i64 %37, 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %14, ptr align 8 @.offload_sizes, i64 24, i1 false)
  %39 = getelementptr inbounds [3 x ptr], ptr %11, i32 0, i32 0
  store i64 %29, ptr %39, align 8
  %40 = getelementptr inbounds [3 x ptr], ptr %12, i32 0, i32 0
  store i64 %29, ptr %40, align 8
  %41 = getelementptr inbounds [3 x ptr], ptr %13, i64 0, i64 0
  store ptr null, ptr %41, align 8
  %42 = getelementptr inbounds [3 x ptr], ptr %11, i32 0, i32 1
  store i64 %31, ptr %42, align 8
  %43 = getelementptr inbounds [3 x ptr], ptr %12, i32 0, i32 1
  store i64 %31, ptr %43, align 8
  %44 = getelementptr inbounds [3 x ptr], ptr %13, i64 0, i64 1
  store ptr null, ptr %44, align 8
  %45 = getelementptr inbounds [3 x ptr], ptr %11, i32 0, i32 2
  store ptr %33, ptr %45, align 8
  %46 = getelementptr inbounds [3 x ptr], ptr %12, i32 0, i32 2
  store ptr %36, ptr %46, align 8
  %47 = getelementptr inbounds [3 x i64], ptr %14, i32 0, i32 2
  store i64 %38, ptr %47, align 8
  %48 = getelementptr inbounds [3 x ptr], ptr %13, i64 0, i64 2
  store ptr null, ptr %48, align 8
  %49 = getelementptr inbounds [3 x ptr], ptr %11, i32 0, i32 0
  %50 = getelementptr inbounds [3 x ptr], ptr %12, i32 0, i32 0
  %51 = getelementptr inbounds [3 x i64], ptr %14, i32 0, i32 0
  %52 = getelementptr inbounds %struct.anon, ptr %15, i32 0, i32 0
  %53 = load i64, ptr %7, align 8
  store i64 %53, ptr %52, align 8
  %54 = getelementptr inbounds %struct.anon, ptr %15, i32 0, i32 1
  %55 = load i64, ptr %6, align 8
  store i64 %55, ptr %54, align 8
  %56 = getelementptr inbounds %struct.anon, ptr %15, i32 0, i32 2
  %57 = load ptr, ptr %4, align 8
  store ptr %57, ptr %56, align 8
  %58 = getelementptr inbounds %struct.anon, ptr %15, i32 0, i32 3
  %59 = load i32, ptr %8, align 4
  store i32 %59, ptr %58, align 8
  %60 = load i32, ptr %8, align 4
  %61 = sext i32 %60 to i64
  %62 = call ptr @__kmpc_omp_target_task_alloc(ptr @3, i32 %18, i32 1, i64 128, i64 32, ptr @.omp_task_entry., i64 %61)
  %63 = getelementptr inbounds %struct.kmp_task_t_with_privates, ptr %62, i32 0, i32 0
  %64 = getelementptr inbounds %struct.kmp_task_t, ptr %63, i32 0, i32 0
  %65 = load ptr, ptr %64, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %65, ptr align 8 %15, i64 32, i1 false)
  %66 = getelementptr inbounds %struct.kmp_task_t_with_privates, ptr %62, i32 0, i32 1
  %67 = getelementptr inbounds %struct..kmp_privates.t, ptr %66, i32 0, i32 0
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %67, ptr align 8 %49, i64 24, i1 false)
  %68 = getelementptr inbounds %struct..kmp_privates.t, ptr %66, i32 0, i32 1
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %68, ptr align 8 %50, i64 24, i1 false)
  %69 = getelementptr inbounds %struct..kmp_privates.t, ptr %66, i32 0, i32 2
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %69, ptr align 8 %51, i64 24, i1 false)
  %70 = getelementptr inbounds %struct..kmp_privates.t, ptr %66, i32 0, i32 3
  %71 = load i64, ptr %6, align 8
  store i64 %71, ptr %70, align 8
  %72 = getelementptr inbounds %struct..kmp_privates.t, ptr %66, i32 0, i32 4
  %73 = load i64, ptr %7, align 8
  store i64 %73, ptr %72, align 8
  %74 = getelementptr inbounds [1 x %struct.kmp_depend_info], ptr %16, i64 0, i64 0
  %75 = load ptr, ptr %4, align 8
  %76 = load i64, ptr %6, align 8
  %77 = getelementptr inbounds double, ptr %75, i64 %76
  %78 = ptrtoint ptr %77 to i64
  %79 = getelementptr %struct.kmp_depend_info, ptr %74, i64 0
  %80 = getelementptr inbounds %struct.kmp_depend_info, ptr %79, i32 0, i32 0
  store i64 %78, ptr %80, align 8
  %81 = getelementptr inbounds %struct.kmp_depend_info, ptr %79, i32 0, i32 1
  store i64 8, ptr %81, align 8
  %82 = getelementptr inbounds %struct.kmp_depend_info, ptr %79, i32 0, i32 2
  store i8 3, ptr %82, align 8
  store i64 1, ptr %17, align 8
  %83 = call i32 @__kmpc_omp_task_with_deps(ptr @3, i32 %18, ptr %62, i32 1, ptr %74, i32 0, ptr null)
  %84 = load ptr, ptr %5, align 8
  call void @__spread_region_end(ptr noundef %84)
  %85 = call i32 @__kmpc_omp_taskwait(ptr @3, i32 %18)
  ret void
}

declare ptr @__spread_region_begin(ptr noundef, i64 noundef, i64 noundef, ptr noundef, i32 noundef, i64 noundef) #1

declare i64 @__spread_chunk_start(ptr noundef) #1

declare i64 @__spread_chunk_size(ptr noundef) #1

; Function Attrs: noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e8eb_scale_l9(i64 noundef %0, i64 noundef %1, ptr noundef %2) #2 {
  %4 = alloca i64, align 8
  %5 = alloca i64, align 8
  %6 = alloca ptr, align 8
  %7 = alloca i64, align 8
  %8 = alloca i64, align 8
  store i64 %0, ptr %4, align 8
  store i64 %1, ptr %5, align 8
  store ptr %2, ptr %6, align 8
  %9 = load i64, ptr %4, align 8
  store i64 %9, ptr %7, align 8
  %10 = load i64, ptr %7, align 8
  %11 = load i64, ptr %5, align 8
  store i64 %11, ptr %8, align 8
  %12 = load i64, ptr %8, align 8
  %13 = load ptr, ptr %6, align 8
  call void (ptr, i32, ptr, ...) @__kmpc_fork_teams(ptr @3, i32 3, ptr @__omp_offloading_fe00_98e8eb_scale_l9.omp_outlined, i64 %10, i64 %12, ptr %13)
  ret void
}

; Function Attrs: noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e8eb_scale_l9.omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, i64 noundef %3, ptr noundef %4) #2 {
  %6 = alloca ptr, align 8
  %7 = alloca ptr, align 8
  %8 = alloca i64, align 8
  %9 = alloca i64, align 8
  %10 = alloca ptr, align 8
  %11 = alloca i64, align 8
  %12 = alloca i64, align 8
  %13 = alloca i64, align 8
  %14 = alloca i64, align 8
  %15 = alloca i64, align 8
  %16 = alloca i64, align 8
  %17 = alloca i64, align 8
  %18 = alloca i64, align 8
  %19 = alloca i64, align 8
  %20 = alloca i32, align 4
  %21 = alloca i64, align 8
  %22 = alloca i64, align 8
  %23 = alloca i64, align 8
  store ptr %0, ptr %6, align 8
  store ptr %1, ptr %7, align 8
  store i64 %2, ptr %8, align 8
  store i64 %3, ptr %9, align 8
  store ptr %4, ptr %10, align 8
  %24 = load i64, ptr %9, align 8
  store i64 %24, ptr %13, align 8
  %25 = load i64, ptr %9, align 8
  %26 = load i64, ptr %8, align 8
  %27 = add nsw i64 %25, %26
  store i64 %27, ptr %14, align 8
  %28 = load i64, ptr %14, align 8
  %29 = load i64, ptr %13, align 8
  %30 = sub i64 %28, %29
  %31 = sub i64 %30, 1
  %32 = add i64 %31, 1
  %33 = udiv i64 %32, 1
  %34 = sub i64 %33, 1
  store i64 %34, ptr %15, align 8
  %35 = load i64, ptr %13, align 8
  store i64 %35, ptr %16, align 8
  %36 = load i64, ptr %13, align 8
  %37 = load i64, ptr %14, align 8
  %38 = icmp slt i64 %36, %37
  br i1 %38, label %39, label %74

39:                                               ; preds = %5
  store i64 0, ptr %17, align 8
  %40 = load i64, ptr %15, align 8
  store i64 %40, ptr %18, align 8
  store i64 1, ptr %19, align 8
  store i32 0, ptr %20, align 4
  %41 = load ptr, ptr %6, align 8
  %42 = load i32, ptr %41, align 4
  call void @__kmpc_for_static_init_8u(ptr @1, i32 %42, i32 92, ptr %20, ptr %17, ptr %18, ptr %19, i64 1, i64 1)
  %43 = load i64, ptr %18, align 8
  %44 = load i64, ptr %15, align 8
  %45 = icmp ugt i64 %43, %44
  br i1 %45, label %46, label %48

46:                                               ; preds = %39
  %47 = load i64, ptr %15, align 8
  br label %50

48:                                               ; preds = %39
  %49 = load i64, ptr %18, align 8
  br label %50

50:                                               ; preds = %48, %46
  %51 = phi i64 [ %47, %46 ], [ %49, %48 ]
  store i64 %51, ptr %18, align 8
  %52 = load i64, ptr %17, align 8
  store i64 %52, ptr %11, align 8
  br label %53

53:                                               ; preds = %66, %50
  %54 = load i64, ptr %11, align 8
  %55 = load i64, ptr %18, align 8
  %56 = add i64 %55, 1
  %57 = icmp ult i64 %54, %56
  br i1 %57, label %58, label %70

58:                                               ; preds = %53
  %59 = load i64, ptr %17, align 8
  %60 = load i64, ptr %18, align 8
  %61 = load i64, ptr %8, align 8
  store i64 %61, ptr %22, align 8
  %62 = load i64, ptr %22, align 8
  %63 = load i64, ptr %9, align 8
  store i64 %63, ptr %23, align 8
  %64 = load i64, ptr %23, align 8
  %65 = load ptr, ptr %10, align 8
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @3, i32 5, ptr @__omp_offloading_fe00_98e8eb_scale_l9.omp_outlined.omp_outlined, i64 %59, i64 %60, i64 %62, i64 %64, ptr %65)
  br label %66

66:                                               ; preds = %58
  %67 = load i64, ptr %11, align 8
  %68 = load i64, ptr %19, align 8
  %69 = add i64 %67, %68
  store i64 %69, ptr %11, align 8
  br label %53

70:                                               ; preds = %53
  br label %71

71:                                               ; preds = %70
  %72 = load ptr, ptr %6, align 8
  %73 = load i32, ptr %72, align 4
  call void @__kmpc_for_static_fini(ptr @1, i32 %73)
  br label %74

74:                                               ; preds = %71, %5
  ret void
}

; Function Attrs: nounwind
declare void @__kmpc_for_static_init_8u(ptr, i32, i32, ptr, ptr, ptr, ptr, i64, i64) #3

; Function Attrs: noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e8eb_scale_l9.omp_outlined.omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, i64 noundef %3, i64 noundef %4, i64 noundef %5, ptr noundef %6) #2 {
  %8 = alloca ptr, align 8
  %9 = alloca ptr, align 8
  %10 = alloca i64, align 8
  %11 = alloca i64, align 8
  %12 = alloca i64, align 8
  %13 = alloca i64, align 8
  %14 = alloca ptr, align 8
  %15 = alloca i64, align 8
  %16 = alloca i64, align 8
  %17 = alloca i64, align 8
  %18 = alloca i64, align 8
  %19 = alloca i64, align 8
  %20 = alloca i64, align 8
  %21 = alloca i64, align 8
  %22 = alloca i64, align 8
  %23 = alloca i64, align 8
  %24 = alloca i32, align 4
  %25 = alloca i64, align 8
  store ptr %0, ptr %8, align 8
  store ptr %1, ptr %9, align 8
  store i64 %2, ptr %10, align 8
  store i64 %3, ptr %11, align 8
  store i64 %4, ptr %12, align 8
  store i64 %5, ptr %13, align 8
  store ptr %6, ptr %14, align 8
  %26 = load i64, ptr %13, align 8
  store i64 %26, ptr %17, align 8
  %27 = load i64, ptr %13, align 8
  %28 = load i64, ptr %12, align 8
  %29 = add nsw i64 %27, %28
  store i64 %29, ptr %18, align 8
  %30 = load i64, ptr %18, align 8
  %31 = load i64, ptr %17, align 8
  %32 = sub i64 %30, %31
  %33 = sub i64 %32, 1
  %34 = add i64 %33, 1
  %35 = udiv i64 %34, 1
  %36 = sub i64 %35, 1
  store i64 %36, ptr %19, align 8
  %37 = load i64, ptr %17, align 8
  store i64 %37, ptr %20, align 8
  %38 = load i64, ptr %17, align 8
  %39 = load i64, ptr %18, align 8
  %40 = icmp slt i64 %38, %39
  br i1 %40, label %41, label %80

41:                                               ; preds = %7
  store i64 0, ptr %21, align 8
  %42 = load i64, ptr %19, align 8
  store i64 %42, ptr %22, align 8
  %43 = load i64, ptr %10, align 8
  %44 = load i64, ptr %11, align 8
  store i64 %43, ptr %21, align 8
  store i64 %44, ptr %22, align 8
  store i64 1, ptr %23, align 8
  store i32 0, ptr %24, align 4
  %45 = load ptr, ptr %8, align 8
  %46 = load i32, ptr %45, align 4
  call void @__kmpc_for_static_init_8u(ptr @2, i32 %46, i32 34, ptr %24, ptr %21, ptr %22, ptr %23, i64 1, i64 1)
  %47 = load i64, ptr %22, align 8
  %48 = load i64, ptr %19, align 8
  %49 = icmp ugt i64 %47, %48
  br i1 %49, label %50, label %52

50:                                               ; preds = %41
  %51 = load i64, ptr %19, align 8
  br label %54

52:                                               ; preds = %41
  %53 = load i64, ptr %22, align 8
  br label %54

54:                                               ; preds = %52, %50
  %55 = phi i64 [ %51, %50 ], [ %53, %52 ]
  store i64 %55, ptr %22, align 8
  %56 = load i64, ptr %21, align 8
  store i64 %56, ptr %15, align 8
  br label %57

57:                                               ; preds = %73, %54
  %58 = load i64, ptr %15, align 8
  %59 = load i64, ptr %22, align 8
  %60 = add i64 %59, 1
  %61 = icmp ult i64 %58, %60
  br i1 %61, label %62, label %76

62:                                               ; preds = %57
  %63 = load i64, ptr %17, align 8
  %64 = load i64, ptr %15, align 8
  %65 = mul i64 %64, 1
  %66 = add i64 %63, %65
  store i64 %66, ptr %25, align 8
  %67 = load ptr, ptr %14, align 8
  %68 = load i64, ptr %25, align 8
  %69 = getelementptr inbounds double, ptr %67, i64 %68
  %70 = load double, ptr %69, align 8
  %71 = fmul double %70, 2.000000e+00
  store double %71, ptr %69, align 8
  br label %72

72:                                               ; preds = %62
  br label %73

73:                                               ; preds = %72
  %74 = load i64, ptr %15, align 8
  %75 = add i64 %74, 1
  store i64 %75, ptr %15, align 8
  br label %57

76:                                               ; preds = %57
  br label %77

77:                                               ; preds = %76
  %78 = load ptr, ptr %8, align 8
  %79 = load i32, ptr %78, align 4
  call void @__kmpc_for_static_fini(ptr @2, i32 %79)
  br label %80

80:                                               ; preds = %77, %7
  ret void
}

; Function Attrs: nounwind
declare void @__kmpc_for_static_fini(ptr, i32) #3

; Function Attrs: nounwind
declare !callback !8 void @__kmpc_fork_call(ptr, i32, ptr, ...) #3

; Function Attrs: nounwind
declare !callback !8 void @__kmpc_fork_teams(ptr, i32, ptr, ...) #3

declare i32 @__spread_chunk_device(ptr noundef) #1

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1 immarg) #4

; Function Attrs: alwaysinline nounwind uwtable
define internal void @.omp_outlined.(i32 noundef %0, ptr noalias noundef %1, ptr noalias noundef %2, ptr noalias noundef %3, ptr noundef %4, ptr noalias noundef %5) #5 {
  %7 = alloca i32, align 4
  %8 = alloca ptr, align 8
  %9 = alloca ptr, align 8
  %10 = alloca ptr, align 8
  %11 = alloca ptr, align 8
  %12 = alloca ptr, align 8
  %13 = alloca ptr, align 8
  %14 = alloca ptr, align 8
  %15 = alloca ptr, align 8
  %16 = alloca ptr, align 8
  %17 = alloca ptr, align 8
  %18 = alloca i64, align 8
  %19 = alloca i64, align 8
  %20 = alloca i64, align 8
  %21 = alloca i64, align 8
  %22 = alloca %struct.__tgt_kernel_arguments, align 8
  %23 = alloca i64, align 8
  %24 = alloca i64, align 8
  store i32 %0, ptr %7, align 4
  store ptr %1, ptr %8, align 8
  store ptr %2, ptr %9, align 8
  store ptr %3, ptr %10, align 8
  store ptr %4, ptr %11, align 8
  store ptr %5, ptr %12, align 8
  %25 = load ptr, ptr %12, align 8
  %26 = load ptr, ptr %10, align 8
  %27 = load ptr, ptr %9, align 8
  call void %26(ptr %27, ptr %13, ptr %14, ptr %15, ptr %16, ptr %17)
  %28 = load ptr, ptr %13, align 8
  %29 = load ptr, ptr %14, align 8
  %30 = load ptr, ptr %15, align 8
  %31 = load ptr, ptr %16, align 8
  %32 = load ptr, ptr %17, align 8
  %33 = getelementptr inbounds [3 x ptr], ptr %30, i64 0, i64 0
  %34 = getelementptr inbounds [3 x ptr], ptr %31, i64 0, i64 0
  %35 = getelementptr inbounds [3 x i64], ptr %32, i64 0, i64 0
  %36 = getelementptr inbounds %struct.anon, ptr %25, i32 0, i32 2
  %37 = getelementptr inbounds %struct.anon, ptr %25, i32 0, i32 3
  %38 = load i32, ptr %37, align 4
  %39 = sext i32 %38 to i64
  %40 = load i64, ptr %28, align 8
  store i64 %40, ptr %19, align 8
  %41 = load i64, ptr %28, align 8
  %42 = load i64, ptr %29, align 8
  %43 = add nsw i64 %41, %42
  store i64 %43, ptr %20, align 8
  %44 = load i64, ptr %20, align 8
  %45 = load i64, ptr %19, align 8
  %46 = sub i64 %44, %45
  %47 = sub i64 %46, 1
  %48 = add i64 %47, 1
  %49 = udiv i64 %48, 1
  %50 = sub i64 %49, 1
  store i64 %50, ptr %21, align 8
  %51 = load i64, ptr %21, align 8
  %52 = add i64 %51, 1
  %53 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 0
  store i32 3, ptr %53, align 4
  %54 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 1
  store i32 3, ptr %54, align 4
  %55 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 2
  store ptr %33, ptr %55, align 8
  %56 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 3
  store ptr %34, ptr %56, align 8
  %57 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 4
  store ptr %35, ptr %57, align 8
  %58 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 5
  store ptr @.offload_maptypes, ptr %58, align 8
  %59 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 6
  store ptr null, ptr %59, align 8
  %60 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 7
  store ptr null, ptr %60, align 8
  %61 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 8
  store i64 %52, ptr %61, align 8
  %62 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 9
  store i64 1, ptr %62, align 8
  %63 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 10
  store [3 x i32] zeroinitializer, ptr %63, align 4
  %64 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 11
  store [3 x i32] zeroinitializer, ptr %64, align 4
  %65 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 12
  store i32 0, ptr %65, align 4
  %66 = call i32 @__tgt_target_kernel(ptr @3, i64 %39, i32 0, i32 0, ptr @.__omp_offloading_fe00_98e8eb_scale_l9.region_id, ptr %22)
  %67 = icmp ne i32 %66, 0
  br i1 %67, label %68, label %74

68:                                               ; preds = %6
  %69 = load i64, ptr %29, align 8
  store i64 %69, ptr %23, align 8
  %70 = load i64, ptr %23, align 8
  %71 = load i64, ptr %28, align 8
  store i64 %71, ptr %24, align 8
  %72 = load i64, ptr %24, align 8
  %73 = load ptr, ptr %36, align 8
  call void @__omp_offloading_fe00_98e8eb_scale_l9(i64 %70, i64 %72, ptr %73) #3
  br label %74

74:                                               ; preds = %68, %6
  ret void
}

; Function Attrs: nounwind
declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr) #3

; Function Attrs: noinline nounwind uwtable
define internal void @.omp_task_privates_map.(ptr noalias noundef %0, ptr noalias noundef %1, ptr noalias noundef %2, ptr noalias noundef %3, ptr noalias noundef %4, ptr noalias noundef %5) #6 {
  %7 = alloca ptr, align 8
  %8 = alloca ptr, align 8
  %9 = alloca ptr, align 8
  %10 = alloca ptr, align 8
  %11 = alloca ptr, align 8
  %12 = alloca ptr, align 8
  store ptr %0, ptr %7, align 8
  store ptr %1, ptr %8, align 8
  store ptr %2, ptr %9, align 8
  store ptr %3, ptr %10, align 8
  store ptr %4, ptr %11, align 8
  store ptr %5, ptr %12, align 8
  %13 = load ptr, ptr %7, align 8
  %14 = getelementptr inbounds %struct..kmp_privates.t, ptr %13, i32 0, i32 0
  %15 = load ptr, ptr %10, align 8
  store ptr %14, ptr %15, align 8
  %16 = getelementptr inbounds %struct..kmp_privates.t, ptr %13, i32 0, i32 1
  %17 = load ptr, ptr %11, align 8
  store ptr %16, ptr %17, align 8
  %18 = getelementptr inbounds %struct..kmp_privates.t, ptr %13, i32 0, i32 2
  %19 = load ptr, ptr %12, align 8
  store ptr %18, ptr %19, align 8
  %20 = getelementptr inbounds %struct..kmp_privates.t, ptr %13, i32 0, i32 3
  %21 = load ptr, ptr %8, align 8
  store ptr %20, ptr %21, align 8
  %22 = getelementptr inbounds %struct..kmp_privates.t, ptr %13, i32 0, i32 4
  %23 = load ptr, ptr %9, align 8
  store ptr %22, ptr %23, align 8
  ret void
}

; Function Attrs: noinline norecurse nounwind uwtable
define internal i32 @.omp_task_entry.(i32 noundef %0, ptr noalias noundef %1) #7 {
  %3 = alloca i32, align 4
  %4 = alloca ptr, align 8
  store i32 %0, ptr %3, align 4
  store ptr %1, ptr %4, align 8
  %5 = load i32, ptr %3, align 4
  %6 = load ptr, ptr %4, align 8
  %7 = getelementptr inbounds %struct.kmp_task_t_with_privates, ptr %6, i32 0, i32 0
  %8 = getelementptr inbounds %struct.kmp_task_t, ptr %7, i32 0, i32 2
  %9 = getelementptr inbounds %struct.kmp_task_t, ptr %7, i32 0, i32 0
  %10 = load ptr, ptr %9, align 8
  %11 = getelementptr inbounds %struct.kmp_task_t_with_privates, ptr %6, i32 0, i32 1
  call void @.omp_outlined.(i32 %5, ptr %8, ptr %11, ptr @.omp_task_privates_map., ptr %6, ptr %10) #3
  ret i32 0
}

; Function Attrs: nounwind
declare i32 @__kmpc_global_thread_num(ptr) #3

; Function Attrs: nounwind
declare noalias ptr @__kmpc_omp_target_task_alloc(ptr, i32, i32, i64, i64, ptr, i64) #3

; Function Attrs: nounwind
declare i32 @__kmpc_omp_task_with_deps(ptr, i32, ptr, i32, ptr, i32, ptr) #3

declare void @__spread_region_end(ptr noundef) #1

; Function Attrs: convergent nounwind
declare i32 @__kmpc_omp_taskwait(ptr, i32) #8

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { noinline norecurse nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind }
attributes #4 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #5 = { alwaysinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #7 = { noinline norecurse nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #8 = { convergent nounwind }

!omp_offload.info = !{!0}
!llvm.module.flags = !{!1, !2, !3, !4, !5, !6}
!llvm.ident = !{!7}

!0 = !{i32 0, i32 65024, i32 10021099, !"scale", i32 9, i32 0, i32 0}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 7, !"openmp", i32 51}
!3 = !{i32 8, !"PIC Level", i32 2}
!4 = !{i32 7, !"PIE Level", i32 2}
!5 = !{i32 7, !"uwtable", i32 2}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!8 = !{!9}
!9 = !{i64 2, i64 -1, i64 -1, i1 true}
