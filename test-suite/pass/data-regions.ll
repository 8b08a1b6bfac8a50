; Two spread regions in one function: `target enter data spread` and `target update
; spread` as the driver lowers them (docs/spread-abi.md §2), host IR from clang-19.
;
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -S %s | FileCheck %s
; RUN: %opt -load-pass-plugin=%spread-pass -passes=spread -pass-remarks=spread -disable-output %s 2>&1 \
; RUN:   | FileCheck --check-prefix=REMARK %s

; REMARK: remark: {{.*}}spread region at data.c:20 rewritten into per-device chunked launches (0 launches, 1 data transfer)
; REMARK: remark: {{.*}}spread region at data.c:31 rewritten into per-device chunked launches (0 launches, 1 data transfer)

; CHECK-LABEL: define dso_local void @data(
; CHECK:      [[R1:%[0-9]+]] = call ptr @__spread_region_begin(ptr noundef @data.__spread_c_1,
; CHECK-NEXT: br label %[[H1:spread.chunk[0-9]*]]
; CHECK:      [[H1]]:
; CHECK-NEXT:   [[N1:%spread.next[0-9]*]] = call i32 @__spread_chunk_next(ptr [[R1]])
; CHECK-NEXT:   [[M1:%spread.more[0-9]*]] = icmp ne i32 [[N1]], 0
; CHECK-NEXT:   br i1 [[M1]], label %[[B1:spread.region[0-9]*]], label %[[E1:spread.end[0-9]*]]
; CHECK:      [[B1]]:
; CHECK:        call void @__spread_target_data_begin_mapper(ptr [[R1]], ptr @{{[0-9]+}}, i64 %{{[0-9]+}}, i32 1, ptr %{{[0-9]+}}, ptr %{{[0-9]+}}, ptr %{{[0-9]+}}, ptr @.offload_maptypes, ptr null, ptr null)
; CHECK:        br label %[[H1]]
; CHECK:      [[E1]]:
; CHECK-NEXT:   call void @__spread_region_end(ptr noundef [[R1]])
; CHECK:      [[R2:%[0-9]+]] = call ptr @__spread_region_begin(ptr noundef @data.__spread_c_2,
; CHECK-NEXT: br label %[[H2:spread.chunk[0-9]*]]
; CHECK:      [[H2]]:
; CHECK-NEXT:   [[N2:%spread.next[0-9]*]] = call i32 @__spread_chunk_next(ptr [[R2]])
; CHECK-NEXT:   [[M2:%spread.more[0-9]*]] = icmp ne i32 [[N2]], 0
; CHECK-NEXT:   br i1 [[M2]], label %[[B2:spread.region[0-9]*]], label %[[E2:spread.end[0-9]*]]
; CHECK:      [[B2]]:
; CHECK:        call void @__spread_target_data_update_mapper(ptr [[R2]], ptr @{{[0-9]+}}, i64 %{{[0-9]+}}, i32 1, ptr %{{[0-9]+}}, ptr %{{[0-9]+}}, ptr %{{[0-9]+}}, ptr @.offload_maptypes.1, ptr null, ptr null)
; CHECK:        br label %[[H2]]
; CHECK:      [[E2]]:
; CHECK-NEXT:   call void @__spread_region_end(ptr noundef [[R2]])
; CHECK-NEXT:   ret void
; CHECK-NOT:  call void @__tgt_target_data_
; CHECK:      declare void @__spread_target_data_begin_mapper(ptr, ptr, i64, i32, ptr, ptr, ptr, ptr, ptr, ptr)
; CHECK:      declare void @__spread_target_data_update_mapper(ptr, ptr, i64, i32, ptr, ptr, ptr, ptr, ptr, ptr)
;
; Generated from this C (with the __spread_* prototypes of docs/spread-abi.md §1) by
;   clang-19 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-host-only \
;     -S -emit-llvm -Xclang -disable-llvm-passes
;
;   void data(int N, double *A) {
;     {
;       static const __spread_construct_t __spread_c_1 = { "data.c", 20, 3, 0, 0 };
;       __spread_region_t *__spread_r_1 = __spread_region_begin(&__spread_c_1, (0), (N), 0, 0, (0));
;       {
;         const int64_t omp_spread_start = __spread_chunk_start(__spread_r_1);
;         const int64_t omp_spread_size = __spread_chunk_size(__spread_r_1);
;         #pragma omp target enter data device(__spread_chunk_device(__spread_r_1)) map(to: A[omp_spread_start:omp_spread_size])
;       }
;       __spread_region_end(__spread_r_1);
;     }
;     {
;       static const __spread_construct_t __spread_c_2 = { "data.c", 31, 5, 0, 0 };
;       __spread_region_t *__spread_r_2 = __spread_region_begin(&__spread_c_2, (0), (N), 0, 0, (0));
;       {
;         const int64_t omp_spread_start = __spread_chunk_start(__spread_r_2);
;         const int64_t omp_spread_size = __spread_chunk_size(__spread_r_2);
;         #pragma omp target update device(__spread_chunk_device(__spread_r_2)) from(A[omp_spread_start:omp_spread_size])
;       }
;       __spread_region_end(__spread_r_2);
;     }
;   }

source_filename = "data.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.__spread_construct_t = type { ptr, i32, i32, i32, i32 }
%struct.ident_t = type { i32, i32, i32, i32, ptr }

@data.__spread_c_1 = internal constant %struct.__spread_construct_t { ptr @.str, i32 20, i32 3, i32 0, i32 0 }, align 8
@.str = private unnamed_addr constant [7 x i8] c"data.c\00", align 1
@.offload_maptypes = private unnamed_addr constant [1 x i64] [i64 1]
@0 = private unnamed_addr constant [23 x i8] c";unknown;unknown;0;0;;\00", align 1
@1 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8
@data.__spread_c_2 = internal constant %struct.__spread_construct_t { ptr @.str, i32 31, i32 5, i32 0, i32 0 }, align 8
@.offload_maptypes.1 = private unnamed_addr constant [1 x i64] [i64 2]

; Function Attrs: noinline nounwind optnone uwtable
define dso_local void @data(i32 noundef %0, ptr noundef %1) #0 {
  %3 = alloca i32, align 4
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i64, align 8
  %7 = alloca i64, align 8
  %8 = alloca i32, align 4
  %9 = alloca [1 x ptr], align 8
  %10 = alloca [1 x ptr], align 8
  %11 = alloca [1 x ptr], align 8
  %12 = alloca [1 x i64], align 8
  %13 = alloca ptr, align 8
  %14 = alloca i64, align 8
  %15 = alloca i64, align 8
  %16 = alloca i32, align 4
  %17 = alloca [1 x ptr], align 8
  %18 = alloca [1 x ptr], align 8
  %19 = alloca [1 x ptr], align 8
  %20 = alloca [1 x i64], align 8
  store i32 %0, ptr %3, align 4
  store ptr %1, ptr %4, align 8
  %21 = load i32, ptr %3, align 4
  %22 = sext i32 %21 to i64
  %23 = call ptr @__spread_region_begin(ptr noundef @data.__spread_c_1, i64 noundef 0, i64 noundef %22, ptr noundef null, i32 noundef 0, i64 noundef 0)
  store ptr %23, ptr %5, align 8
  %24 = load ptr, ptr %5, align 8
  %25 = call i64 @__spread_chunk_start(ptr noundef %24)
  store i64 %25, ptr %6, align 8
  %26 = load ptr, ptr %5, align 8
  %27 = call i64 @__spread_chunk_size(ptr noundef %26)
  store i64 %27, ptr %7, align 8
  %28 = load ptr, ptr %5, align 8
  %29 = call i32 @__spread_chunk_device(ptr noundef %28)
  store i32 %29, ptr %8, align 4
  %30 = load ptr, ptr %4, align 8
  %31 = load i64, ptr %6, align 8
  %32 = load ptr, ptr %4, align 8
  %33 = getelementptr inbounds double, ptr %32, i64 %31
  %34 = load i64, ptr %7, align 8
  %35 = mul nuw i64 %34, 8
  %36 = getelementptr inbounds [1 x ptr], ptr %9, i32 0, i32 0
  store ptr %30, ptr %36, align 8
  %37 = getelementptr inbounds [1 x ptr], ptr %10, i32 0, i32 0
  store ptr %33, ptr %37, align 8
  %38 = getelementptr inbounds [1 x i64], ptr %12, i32 0, i32 0
  store i64 %35, ptr %38, align 8
  %39 = getelementptr inbounds [1 x ptr], ptr %11, i64 0, i64 0
  store ptr null, ptr %39, align 8
  %40 = getelementptr inbounds [1 x ptr], ptr %9, i32 0, i32 0
  %41 = getelementptr inbounds [1 x ptr], ptr %10, i32 0, i32 0
  %42 = getelementptr inbounds [1 x i64], ptr %12, i32 0, i32 0
  %43 = load i32, ptr %8, align 4
  %44 = sext i32 %43 to i64
  call void @__tgt_target_data_begin_mapper(ptr @1, i64 %44, i32 1, ptr %40, ptr %41, ptr %42, ptr @.offload_maptypes, ptr null, ptr null)
  %45 = load ptr, ptr %5, align 8
  call void @__spread_region_end(ptr noundef %45)
  %46 = load i32, ptr %3, align 4
  %47 = sext i32 %46 to i64
  %48 = call ptr @__spread_region_begin(ptr noundef @data.__spread_c_2, i64 noundef 0, i64 noundef %47, ptr noundef null, i32 noundef 0, i64 noundef 0)
  store ptr %48, ptr %13, align 8
  %49 = load ptr, ptr %13, align 8
  %50 = call i64 @__spread_chunk_start(ptr noundef %49)
  store i64 %50, ptr %14, align 8
  %51 = load ptr, ptr %13, align 8
  %52 = call i64 @__spread_chunk_size(ptr noundef %51)
  store i64 %52, ptr %15, align 8
  %53 = load ptr, ptr %13, align 8
  %54 = call i32 @__spread_chunk_device(ptr noundef %53)
  store i32 %54, ptr %16, align 4
  %55 = load ptr, ptr %4, align 8
  %56 = load i64, ptr %14, align 8
  %57 = load ptr, ptr %4, align 8
  %58 = getelementptr inbounds double, ptr %57, i64 %56
  %59 = load i64, ptr %15, align 8
  %60 = mul nuw i64 %59, 8
  %61 = getelementptr inbounds [1 x ptr], ptr %17, i32 0, i32 0
  store ptr %55, ptr %61, align 8
  %62 = getelementptr inbounds [1 x ptr], ptr %18, i32 0, i32 0
  store ptr %58, ptr %62, align 8
  %63 = getelementptr inbounds [1 x i64], ptr %20, i32 0, i32 0
  store i64 %60, ptr %63, align 8
  %64 = getelementptr inbounds [1 x ptr], ptr %19, i64 0, i64 0
  store ptr null, ptr %64, align 8
  %65 = getelementptr inbounds [1 x ptr], ptr %17, i32 0, i32 0
  %66 = getelementptr inbounds [1 x ptr], ptr %18, i32 0, i32 0
  %67 = getelementptr inbounds [1 x i64], ptr %20, i32 0, i32 0
  %68 = load i32, ptr %16, align 4
  %69 = sext i32 %68 to i64
  call void @__tgt_target_data_update_mapper(ptr @1, i64 %69, i32 1, ptr %65, ptr %66, ptr %67, ptr @.offload_maptypes.1, ptr null, ptr null)
  %70 = load ptr, ptr %13, align 8
  call void @__spread_region_end(ptr noundef %70)
  ret void
}

declare ptr @__spread_region_begin(ptr noundef, i64 noundef, i64 noundef, ptr noundef, i32 noundef, i64 noundef) #1

declare i64 @__spread_chunk_start(ptr noundef) #1

declare i64 @__spread_chunk_size(ptr noundef) #1

declare i32 @__spread_chunk_device(ptr noundef) #1

; Function Attrs: nounwind
declare void @__tgt_target_data_begin_mapper(ptr, i64, i32, ptr, ptr, ptr, ptr, ptr, ptr) #2

declare void @__spread_region_end(ptr noundef) #1

; Function Attrs: nounwind
declare void @__tgt_target_data_update_mapper(ptr, i64, i32, ptr, ptr, ptr, ptr, ptr, ptr) #2

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}
!llvm.ident = !{!6}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"openmp", i32 51}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
