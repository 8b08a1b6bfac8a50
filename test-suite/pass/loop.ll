; The spread pass on a `target spread teams distribute parallel for` region as the driver
; lowers it (docs/spread-abi.md §2), host IR as clang-19 emits it before optimisation (-O0
; style: the region handle lives in an alloca and is reloaded for __spread_region_end).
;
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -pass-remarks=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=REMARK %s
; Running the pass twice (or once more in a pipeline) does not wrap the region twice.
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread,spread -S %s | FileCheck --check-prefix=TWICE %s
; Without -passes=spread, the plugin runs at the start of the default pipelines.
; RUN: %opt -load-pass-plugin=%spread-pass -passes='default<O0>' -S %s | FileCheck --check-prefix=PIPE %s
; RUN: %opt -load-pass-plugin=%spread-pass -passes='default<O2>' -S %s | FileCheck --check-prefix=PIPE %s

; REMARK: remark: {{.*}}spread region at stencil.c:12 rewritten into per-device chunked launches (1 launch, 0 data transfers)

; CHECK-LABEL: define dso_local void @stencil(
; CHECK:      [[R:%[0-9]+]] = call ptr @__spread_region_begin(ptr noundef @stencil.__spread_c_0, i64 noundef 1,
; CHECK-NEXT: br label %spread.chunk
; CHECK-EMPTY:
; CHECK-NEXT: spread.chunk:
; CHECK-NEXT:   %spread.next = call i32 @__spread_chunk_next(ptr [[R]])
; CHECK-NEXT:   %spread.more = icmp ne i32 %spread.next, 0
; CHECK-NEXT:   br i1 %spread.more, label %spread.region, label %spread.end
; CHECK-EMPTY:
; CHECK-NEXT: spread.region:
; CHECK-NEXT:   store ptr [[R]], ptr [[SLOT:%[0-9]+]]
; CHECK:        call i64 @__spread_chunk_start(
; CHECK:        call i64 @__spread_chunk_size(
; CHECK:        call i32 @__spread_chunk_device(
; CHECK:        [[RC:%[0-9]+]] = call i32 @__spread_target_kernel(ptr [[R]], ptr @{{[0-9]+}}, i64 %{{[0-9]+}}, i32 2, i32 0, ptr @.__omp_offloading_{{.*}}_stencil_l{{[0-9]+}}.region_id, ptr %{{[0-9]+}})
; CHECK-NEXT:   [[FAILED:%[0-9]+]] = icmp ne i32 [[RC]], 0
; CHECK-NEXT:   br i1 [[FAILED]], label %[[FALLBACK:[0-9]+]], label %[[LATCH:[0-9]+]]
; CHECK:      [[FALLBACK]]:
; CHECK-NEXT:   call void @__omp_offloading_{{.*}}_stencil_l{{[0-9]+}}(
; CHECK-NEXT:   br label %[[LATCH]]
; CHECK:      [[LATCH]]:
; The back-edge: what reached __spread_region_end now goes to the header.
; CHECK-NEXT:   load ptr, ptr [[SLOT]]
; CHECK-NEXT:   br label %spread.chunk
; CHECK-EMPTY:
; CHECK-NEXT: spread.end:
; CHECK-NEXT:   call void @__spread_region_end(ptr noundef [[R]])
; CHECK-NEXT:   ret void
; The host fallback (outlined) functions are left alone.
; CHECK-LABEL: define internal void @__omp_offloading_{{.*}}_stencil_l{{[0-9]+}}(
; CHECK-NOT:  @__spread_
; CHECK:      {{^}$}}
; CHECK:      declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr)
; CHECK:      declare i32 @__spread_chunk_next(ptr)
; CHECK:      declare i32 @__spread_target_kernel(ptr, ptr, i64, i32, i32, ptr, ptr)

; TWICE:     call i32 @__spread_chunk_next(
; TWICE-NOT: call i32 @__spread_chunk_next(

; PIPE-LABEL: define {{.*}}void @stencil(
; PIPE:       call {{.*}}ptr @__spread_region_begin(
; PIPE:       call i32 @__spread_chunk_next(
; PIPE:       call i32 @__spread_target_kernel(
; PIPE:       call void @__spread_region_end(
;
; Generated from this C (with the __spread_* prototypes of docs/spread-abi.md §1) by
;   clang-19 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-host-only \
;     -S -emit-llvm -Xclang -disable-llvm-passes
;
;   void stencil(int N, double *A, double *B) {
;     {
;       static const __spread_construct_t __spread_c_0 = { "stencil.c", 12, 1, 0, 0 };
;       const int32_t __spread_devs_0[] = { 2, 0, 1 };
;       __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (1), (N - 1), __spread_devs_0, 3, (4));
;       {
;         const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0);
;         const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0);
;         #pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) num_teams(2) \
;                 map(to: A[omp_spread_start-1:omp_spread_size+2]) map(from: B[omp_spread_start:omp_spread_size])
;         for (int i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) B[i] = A[i-1] + A[i] + A[i+1];
;       }
;       __spread_region_end(__spread_r_0);
;     }
;   }

source_filename = "loop.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.__spread_construct_t = type { ptr, i32, i32, i32, i32 }
%struct.ident_t = type { i32, i32, i32, i32, ptr }
%struct.__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }
%struct.__tgt_kernel_arguments = type { i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, [3 x i32], [3 x i32], i32 }

@stencil.__spread_c_0 = internal constant %struct.__spread_construct_t { ptr @.str, i32 12, i32 1, i32 0, i32 0 }, align 8
@.str = private unnamed_addr constant [10 x i8] c"stencil.c\00", align 1
@__const.stencil.__spread_devs_0 = private unnamed_addr constant [3 x i32] [i32 2, i32 0, i32 1], align 4
@0 = private unnamed_addr constant [23 x i8] c";unknown;unknown;0;0;;\00", align 1
@1 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2050, i32 0, i32 22, ptr @0 }, align 8
@2 = private unnamed_addr constant %struct.ident_t { i32 0, i32 514, i32 0, i32 22, ptr @0 }, align 8
@3 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8
@.__omp_offloading_fe00_98e8e9_stencil_l10.region_id = weak constant i8 0
@.offload_sizes = private unnamed_addr constant [4 x i64] [i64 8, i64 8, i64 0, i64 0]
@.offload_maptypes = private unnamed_addr constant [4 x i64] [i64 800, i64 800, i64 34, i64 33]
@.offloading.entry_name = internal unnamed_addr constant [41 x i8] c"__omp_offloading_fe00_98e8e9_stencil_l10\00"
@.offloading.entry.__omp_offloading_fe00_98e8e9_stencil_l10 = weak constant %struct.__tgt_offload_entry { ptr @.__omp_offloading_fe00_98e8e9_stencil_l10.region_id, ptr @.offloading.entry_name, i64 0, i32 0, i32 0 }, section "omp_offloading_entries", align 1

; Function Attrs: noinline nounwind optnone uwtable
define dso_local void @stencil(i32 noundef %0, ptr noundef %1, ptr noundef %2) #0 {
  %4 = alloca i32, align 4
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca [3 x i32], align 4
  %8 = alloca ptr, align 8
  %9 = alloca i64, align 8
  %10 = alloca i64, align 8
  %11 = alloca i32, align 4
  %12 = alloca i64, align 8
  %13 = alloca i64, align 8
  %14 = alloca [4 x ptr], align 8
  %15 = alloca [4 x ptr], align 8
  %16 = alloca [4 x ptr], align 8
  %17 = alloca [4 x i64], align 8
  %18 = alloca i32, align 4
  %19 = alloca i32, align 4
  %20 = alloca i64, align 8
  %21 = alloca i32, align 4
  %22 = alloca %struct.__tgt_kernel_arguments, align 8
  store i32 %0, ptr %4, align 4
  store ptr %1, ptr %5, align 8
  store ptr %2, ptr %6, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 @__const.stencil.__spread_devs_0, i64 12, i1 false)
  %23 = load i32, ptr %4, align 4
  %24 = sub nsw i32 %23, 1
  %25 = sext i32 %24 to i64
  %26 = getelementptr inbounds [3 x i32], ptr %7, i64 0, i64 0
  %27 = call ptr @__spread_region_begin(ptr noundef @stencil.__spread_c_0, i64 noundef 1, i64 noundef %25, ptr noundef %26, i32 noundef 3, i64 noundef 4)
  store ptr %27, ptr %8, align 8
  %28 = load ptr, ptr %8, align 8
  %29 = call i64 @__spread_chunk_start(ptr noundef %28)
  store i64 %29, ptr %9, align 8
  %30 = load ptr, ptr %8, align 8
  %31 = call i64 @__spread_chunk_size(ptr noundef %30)
  store i64 %31, ptr %10, align 8
  %32 = load ptr, ptr %8, align 8
  %33 = call i32 @__spread_chunk_device(ptr noundef %32)
  store i32 %33, ptr %11, align 4
  %34 = load i64, ptr %10, align 8
  store i64 %34, ptr %12, align 8
  %35 = load i64, ptr %12, align 8
  %36 = load i64, ptr %9, align 8
  store i64 %36, ptr %13, align 8
  %37 = load i64, ptr %13, align 8
  %38 = load ptr, ptr %6, align 8
  %39 = load ptr, ptr %5, align 8
  %40 = load ptr, ptr %6, align 8
  %41 = load i64, ptr %9, align 8
  %42 = load ptr, ptr %6, align 8
  %43 = getelementptr inbounds double, ptr %42, i64 %41
  %44 = load i64, ptr %10, align 8
  %45 = mul nuw i64 %44, 8
  %46 = load ptr, ptr %5, align 8
  %47 = load i64, ptr %9, align 8
  %48 = sub nsw i64 %47, 1
  %49 = load ptr, ptr %5, align 8
  %50 = getelementptr inbounds double, ptr %49, i64 %48
  %51 = load i64, ptr %10, align 8
  %52 = add nsw i64 %51, 2
  %53 = mul nuw i64 %52, 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %17, ptr align 8 @.offload_sizes, i64 32, i1 false)
  %54 = getelementptr inbounds [4 x ptr], ptr %14, i32 0, i32 0
  store i64 %35, ptr %54, align 8
  %55 = getelementptr inbounds [4 x ptr], ptr %15, i32 0, i32 0
  store i64 %35, ptr %55, align 8
  %56 = getelementptr inbounds [4 x ptr], ptr %16, i64 0, i64 0
  store ptr null, ptr %56, align 8
  %57 = getelementptr inbounds [4 x ptr], ptr %14, i32 0, i32 1
  store i64 %37, ptr %57, align 8
  %58 = getelementptr inbounds [4 x ptr], ptr %15, i32 0, i32 1
  store i64 %37, ptr %58, align 8
  %59 = getelementptr inbounds [4 x ptr], ptr %16, i64 0, i64 1
  store ptr null, ptr %59, align 8
  %60 = getelementptr inbounds [4 x ptr], ptr %14, i32 0, i32 2
  store ptr %40, ptr %60, align 8
  %61 = getelementptr inbounds [4 x ptr], ptr %15, i32 0, i32 2
  store ptr %43, ptr %61, align 8
  %62 = getelementptr inbounds [4 x i64], ptr %17, i32 0, i32 2
  store i64 %45, ptr %62, align 8
  %63 = getelementptr inbounds [4 x ptr], ptr %16, i64 0, i64 2
  store ptr null, ptr %63, align 8
  %64 = getelementptr inbounds [4 x ptr], ptr %14, i32 0, i32 3
  store ptr %46, ptr %64, align 8
  %65 = getelementptr inbounds [4 x ptr], ptr %15, i32 0, i32 3
  store ptr %50, ptr %65, align 8
  %66 = getelementptr inbounds [4 x i64], ptr %17, i32 0, i32 3
  store i64 %53, ptr %66, align 8
  %67 = getelementptr inbounds [4 x ptr], ptr %16, i64 0, i64 3
  store ptr null, ptr %67, align 8
  %68 = getelementptr inbounds [4 x ptr], ptr %14, i32 0, i32 0
  %69 = getelementptr inbounds [4 x ptr], ptr %15, i32 0, i32 0
  %70 = getelementptr inbounds [4 x i64], ptr %17, i32 0, i32 0
  %71 = load i32, ptr %11, align 4
  %72 = sext i32 %71 to i64
  %73 = load i64, ptr %9, align 8
  %74 = trunc i64 %73 to i32
  store i32 %74, ptr %19, align 4
  %75 = load i64, ptr %9, align 8
  %76 = load i64, ptr %10, align 8
  %77 = add nsw i64 %75, %76
  store i64 %77, ptr %20, align 8
  %78 = load i64, ptr %20, align 8
  %79 = load i32, ptr %19, align 4
  %80 = sext i32 %79 to i64
  %81 = sub i64 %78, %80
  %82 = sub i64 %81, 1
  %83 = add i64 %82, 1
  %84 = udiv i64 %83, 1
  %85 = trunc i64 %84 to i32
  %86 = sub nsw i32 %85, 1
  store i32 %86, ptr %21, align 4
  %87 = load i32, ptr %21, align 4
  %88 = add nsw i32 %87, 1
  %89 = zext i32 %88 to i64
  %90 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 0
  store i32 3, ptr %90, align 4
  %91 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 1
  store i32 4, ptr %91, align 4
  %92 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 2
  store ptr %68, ptr %92, align 8
  %93 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 3
  store ptr %69, ptr %93, align 8
  %94 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 4
  store ptr %70, ptr %94, align 8
  %95 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 5
  store ptr @.offload_maptypes, ptr %95, align 8
  %96 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 6
  store ptr null, ptr %96, align 8
  %97 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 7
  store ptr null, ptr %97, align 8
  %98 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 8
  store i64 %89, ptr %98, align 8
  %99 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 9
  store i64 0, ptr %99, align 8
  %100 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 10
  store [3 x i32] [i32 2, i32 0, i32 0], ptr %100, align 4
  %101 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 11
  store [3 x i32] zeroinitializer, ptr %101, align 4
  %102 = getelementptr inbounds %struct.__tgt_kernel_arguments, ptr %22, i32 0, i32 12
  store i32 0, ptr %102, align 4
  %103 = call i32 @__tgt_target_kernel(ptr @3, i64 %72, i32 2, i32 0, ptr @.__omp_offloading_fe00_98e8e9_stencil_l10.region_id, ptr %22)
  %104 = icmp ne i32 %103, 0
  br i1 %104, label %105, label %106

105:                                              ; preds = %3
  call void @__omp_offloading_fe00_98e8e9_stencil_l10(i64 %35, i64 %37, ptr %38, ptr %39) #4
  br label %106

106:                                              ; preds = %105, %3
  %107 = load ptr, ptr %8, align 8
  call void @__spread_region_end(ptr noundef %107)
  ret void
}

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1 immarg) #1

declare ptr @__spread_region_begin(ptr noundef, i64 noundef, i64 noundef, ptr noundef, i32 noundef, i64 noundef) #2

declare i64 @__spread_chunk_start(ptr noundef) #2

declare i64 @__spread_chunk_size(ptr noundef) #2

; Function Attrs: noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e8e9_stencil_l10(i64 noundef %0, i64 noundef %1, ptr noundef %2, ptr noundef %3) #3 {
  %5 = alloca i64, align 8
  %6 = alloca i64, align 8
  %7 = alloca ptr, align 8
  %8 = alloca ptr, align 8
  %9 = alloca i64, align 8
  %10 = alloca i64, align 8
  %11 = call i32 @__kmpc_global_thread_num(ptr @3)
  store i64 %0, ptr %5, align 8
  store i64 %1, ptr %6, align 8
  store ptr %2, ptr %7, align 8
  store ptr %3, ptr %8, align 8
  call void @__kmpc_push_num_teams(ptr @3, i32 %11, i32 2, i32 0)
  %12 = load i64, ptr %5, align 8
  store i64 %12, ptr %9, align 8
  %13 = load i64, ptr %9, align 8
  %14 = load i64, ptr %6, align 8
  store i64 %14, ptr %10, align 8
  %15 = load i64, ptr %10, align 8
  %16 = load ptr, ptr %7, align 8
  %17 = load ptr, ptr %8, align 8
  call void (ptr, i32, ptr, ...) @__kmpc_fork_teams(ptr @3, i32 4, ptr @__omp_offloading_fe00_98e8e9_stencil_l10.omp_outlined, i64 %13, i64 %15, ptr %16, ptr %17)
  ret void
}

; Function Attrs: noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e8e9_stencil_l10.omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, i64 noundef %3, ptr noundef %4, ptr noundef %5) #3 {
  %7 = alloca ptr, align 8
  %8 = alloca ptr, align 8
  %9 = alloca i64, align 8
  %10 = alloca i64, align 8
  %11 = alloca ptr, align 8
  %12 = alloca ptr, align 8
  %13 = alloca i32, align 4
  %14 = alloca i32, align 4
  %15 = alloca i32, align 4
  %16 = alloca i64, align 8
  %17 = alloca i32, align 4
  %18 = alloca i32, align 4
  %19 = alloca i32, align 4
  %20 = alloca i32, align 4
  %21 = alloca i32, align 4
  %22 = alloca i32, align 4
  %23 = alloca i32, align 4
  %24 = alloca i64, align 8
  %25 = alloca i64, align 8
  store ptr %0, ptr %7, align 8
  store ptr %1, ptr %8, align 8
  store i64 %2, ptr %9, align 8
  store i64 %3, ptr %10, align 8
  store ptr %4, ptr %11, align 8
  store ptr %5, ptr %12, align 8
  %26 = load i64, ptr %10, align 8
  %27 = trunc i64 %26 to i32
  store i32 %27, ptr %15, align 4
  %28 = load i64, ptr %10, align 8
  %29 = load i64, ptr %9, align 8
  %30 = add nsw i64 %28, %29
  store i64 %30, ptr %16, align 8
  %31 = load i64, ptr %16, align 8
  %32 = load i32, ptr %15, align 4
  %33 = sext i32 %32 to i64
  %34 = sub i64 %31, %33
  %35 = sub i64 %34, 1
  %36 = add i64 %35, 1
  %37 = udiv i64 %36, 1
  %38 = trunc i64 %37 to i32
  %39 = sub nsw i32 %38, 1
  store i32 %39, ptr %17, align 4
  %40 = load i32, ptr %15, align 4
  store i32 %40, ptr %18, align 4
  %41 = load i32, ptr %15, align 4
  %42 = sext i32 %41 to i64
  %43 = load i64, ptr %16, align 8
  %44 = icmp slt i64 %42, %43
  br i1 %44, label %45, label %82

45:                                               ; preds = %6
  store i32 0, ptr %19, align 4
  %46 = load i32, ptr %17, align 4
  store i32 %46, ptr %20, align 4
  store i32 1, ptr %21, align 4
  store i32 0, ptr %22, align 4
  %47 = load ptr, ptr %7, align 8
  %48 = load i32, ptr %47, align 4
  call void @__kmpc_for_static_init_4(ptr @1, i32 %48, i32 92, ptr %22, ptr %19, ptr %20, ptr %21, i32 1, i32 1)
  %49 = load i32, ptr %20, align 4
  %50 = load i32, ptr %17, align 4
  %51 = icmp sgt i32 %49, %50
  br i1 %51, label %52, label %54

52:                                               ; preds = %45
  %53 = load i32, ptr %17, align 4
  br label %56

54:                                               ; preds = %45
  %55 = load i32, ptr %20, align 4
  br label %56

56:                                               ; preds = %54, %52
  %57 = phi i32 [ %53, %52 ], [ %55, %54 ]
  store i32 %57, ptr %20, align 4
  %58 = load i32, ptr %19, align 4
  store i32 %58, ptr %13, align 4
  br label %59

59:                                               ; preds = %74, %56
  %60 = load i32, ptr %13, align 4
  %61 = load i32, ptr %20, align 4
  %62 = icmp sle i32 %60, %61
  br i1 %62, label %63, label %78

63:                                               ; preds = %59
  %64 = load i32, ptr %19, align 4
  %65 = zext i32 %64 to i64
  %66 = load i32, ptr %20, align 4
  %67 = zext i32 %66 to i64
  %68 = load i64, ptr %9, align 8
  store i64 %68, ptr %24, align 8
  %69 = load i64, ptr %24, align 8
  %70 = load i64, ptr %10, align 8
  store i64 %70, ptr %25, align 8
  %71 = load i64, ptr %25, align 8
  %72 = load ptr, ptr %11, align 8
  %73 = load ptr, ptr %12, align 8
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @3, i32 6, ptr @__omp_offloading_fe00_98e8e9_stencil_l10.omp_outlined.omp_outlined, i64 %65, i64 %67, i64 %69, i64 %71, ptr %72, ptr %73)
  br label %74

74:                                               ; preds = %63
  %75 = load i32, ptr %13, align 4
  %76 = load i32, ptr %21, align 4
  %77 = add nsw i32 %75, %76
  store i32 %77, ptr %13, align 4
  br label %59

78:                                               ; preds = %59
  br label %79

79:                                               ; preds = %78
  %80 = load ptr, ptr %7, align 8
  %81 = load i32, ptr %80, align 4
  call void @__kmpc_for_static_fini(ptr @1, i32 %81)
  br label %82

82:                                               ; preds = %79, %6
  ret void
}

; Function Attrs: nounwind
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32) #4

; Function Attrs: noinline norecurse nounwind optnone uwtable
define internal void @__omp_offloading_fe00_98e8e9_stencil_l10.omp_outlined.omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, i64 noundef %3, i64 noundef %4, i64 noundef %5, ptr noundef %6, ptr noundef %7) #3 {
  %9 = alloca ptr, align 8
  %10 = alloca ptr, align 8
  %11 = alloca i64, align 8
  %12 = alloca i64, align 8
  %13 = alloca i64, align 8
  %14 = alloca i64, align 8
  %15 = alloca ptr, align 8
  %16 = alloca ptr, align 8
  %17 = alloca i32, align 4
  %18 = alloca i32, align 4
  %19 = alloca i32, align 4
  %20 = alloca i64, align 8
  %21 = alloca i32, align 4
  %22 = alloca i32, align 4
  %23 = alloca i32, align 4
  %24 = alloca i32, align 4
  %25 = alloca i32, align 4
  %26 = alloca i32, align 4
  %27 = alloca i32, align 4
  store ptr %0, ptr %9, align 8
  store ptr %1, ptr %10, align 8
  store i64 %2, ptr %11, align 8
  store i64 %3, ptr %12, align 8
  store i64 %4, ptr %13, align 8
  store i64 %5, ptr %14, align 8
  store ptr %6, ptr %15, align 8
  store ptr %7, ptr %16, align 8
  %28 = load i64, ptr %14, align 8
  %29 = trunc i64 %28 to i32
  store i32 %29, ptr %19, align 4
  %30 = load i64, ptr %14, align 8
  %31 = load i64, ptr %13, align 8
  %32 = add nsw i64 %30, %31
  store i64 %32, ptr %20, align 8
  %33 = load i64, ptr %20, align 8
  %34 = load i32, ptr %19, align 4
  %35 = sext i32 %34 to i64
  %36 = sub i64 %33, %35
  %37 = sub i64 %36, 1
  %38 = add i64 %37, 1
  %39 = udiv i64 %38, 1
  %40 = trunc i64 %39 to i32
  %41 = sub nsw i32 %40, 1
  store i32 %41, ptr %21, align 4
  %42 = load i32, ptr %19, align 4
  store i32 %42, ptr %22, align 4
  %43 = load i32, ptr %19, align 4
  %44 = sext i32 %43 to i64
  %45 = load i64, ptr %20, align 8
  %46 = icmp slt i64 %44, %45
  br i1 %46, label %47, label %105

47:                                               ; preds = %8
  store i32 0, ptr %23, align 4
  %48 = load i32, ptr %21, align 4
  store i32 %48, ptr %24, align 4
  %49 = load i64, ptr %11, align 8
  %50 = trunc i64 %49 to i32
  %51 = load i64, ptr %12, align 8
  %52 = trunc i64 %51 to i32
  store i32 %50, ptr %23, align 4
  store i32 %52, ptr %24, align 4
  store i32 1, ptr %25, align 4
  store i32 0, ptr %26, align 4
  %53 = load ptr, ptr %9, align 8
  %54 = load i32, ptr %53, align 4
  call void @__kmpc_for_static_init_4(ptr @2, i32 %54, i32 34, ptr %26, ptr %23, ptr %24, ptr %25, i32 1, i32 1)
  %55 = load i32, ptr %24, align 4
  %56 = load i32, ptr %21, align 4
  %57 = icmp sgt i32 %55, %56
  br i1 %57, label %58, label %60

58:                                               ; preds = %47
  %59 = load i32, ptr %21, align 4
  br label %62

60:                                               ; preds = %47
  %61 = load i32, ptr %24, align 4
  br label %62

62:                                               ; preds = %60, %58
  %63 = phi i32 [ %59, %58 ], [ %61, %60 ]
  store i32 %63, ptr %24, align 4
  %64 = load i32, ptr %23, align 4
  store i32 %64, ptr %17, align 4
  br label %65

65:                                               ; preds = %98, %62
  %66 = load i32, ptr %17, align 4
  %67 = load i32, ptr %24, align 4
  %68 = icmp sle i32 %66, %67
  br i1 %68, label %69, label %101

69:                                               ; preds = %65
  %70 = load i32, ptr %19, align 4
  %71 = load i32, ptr %17, align 4
  %72 = mul nsw i32 %71, 1
  %73 = add nsw i32 %70, %72
  store i32 %73, ptr %27, align 4
  %74 = load ptr, ptr %16, align 8
  %75 = load i32, ptr %27, align 4
  %76 = sub nsw i32 %75, 1
  %77 = sext i32 %76 to i64
  %78 = getelementptr inbounds double, ptr %74, i64 %77
  %79 = load double, ptr %78, align 8
  %80 = load ptr, ptr %16, align 8
  %81 = load i32, ptr %27, align 4
  %82 = sext i32 %81 to i64
  %83 = getelementptr inbounds double, ptr %80, i64 %82
  %84 = load double, ptr %83, align 8
  %85 = fadd double %79, %84
  %86 = load ptr, ptr %16, align 8
  %87 = load i32, ptr %27, align 4
  %88 = add nsw i32 %87, 1
  %89 = sext i32 %88 to i64
  %90 = getelementptr inbounds double, ptr %86, i64 %89
  %91 = load double, ptr %90, align 8
  %92 = fadd double %85, %91
  %93 = load ptr, ptr %15, align 8
  %94 = load i32, ptr %27, align 4
  %95 = sext i32 %94 to i64
  %96 = getelementptr inbounds double, ptr %93, i64 %95
  store double %92, ptr %96, align 8
  br label %97

97:                                               ; preds = %69
  br label %98

98:                                               ; preds = %97
  %99 = load i32, ptr %17, align 4
  %100 = add nsw i32 %99, 1
  store i32 %100, ptr %17, align 4
  br label %65

101:                                              ; preds = %65
  br label %102

102:                                              ; preds = %101
  %103 = load ptr, ptr %9, align 8
  %104 = load i32, ptr %103, align 4
  call void @__kmpc_for_static_fini(ptr @2, i32 %104)
  br label %105

105:                                              ; preds = %102, %8
  ret void
}

; Function Attrs: nounwind
declare void @__kmpc_for_static_fini(ptr, i32) #4

; Function Attrs: nounwind
declare !callback !8 void @__kmpc_fork_call(ptr, i32, ptr, ...) #4

; Function Attrs: nounwind
declare i32 @__kmpc_global_thread_num(ptr) #4

; Function Attrs: nounwind
declare void @__kmpc_push_num_teams(ptr, i32, i32, i32) #4

; Function Attrs: nounwind
declare !callback !8 void @__kmpc_fork_teams(ptr, i32, ptr, ...) #4

declare i32 @__spread_chunk_device(ptr noundef) #2

; Function Attrs: nounwind
declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr) #4

declare void @__spread_region_end(ptr noundef) #2

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { noinline norecurse nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!omp_offload.info = !{!0}
!llvm.module.flags = !{!1, !2, !3, !4, !5, !6}
!llvm.ident = !{!7}

!0 = !{i32 0, i32 65024, i32 10021097, !"stencil", i32 10, i32 0, i32 0}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 7, !"openmp", i32 51}
!3 = !{i32 8, !"PIC Level", i32 2}
!4 = !{i32 7, !"PIE Level", i32 2}
!5 = !{i32 7, !"uwtable", i32 2}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!8 = !{!9}
!9 = !{i64 2, i64 -1, i64 -1, i1 true}
