// Task sharing (seed 002): what the driver rejects in target device(any), if_device and
// resources, at the user's line and column.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace %s
// CHECK-NOT: panicked

void f(int n, double *a) {
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(amd) parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(nvidia) teams distribute parallel for
#pragma omp if_device(nvptx) teams distribute
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(host) parallel for resources(150)
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(host, sm_90) parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(nvidia, sm9x) teams distribute parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target data device(any) map(a[0:n])
  { a[0] = 1; }
#pragma omp target enter data map(to: a[0:n]) device(any)
#pragma omp if_device(host) parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp parallel for resources(10)
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(host) target parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(host) parallel frob
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) teams distribute map(a[0:n])
#pragma omp if_device(host) parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n]) resources(-3)
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target update device(any) to(a[0:n])
#pragma omp target spread devices(0) device(any)
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) parallel for map(a[0:n])
  while (n--) a[n] = 0;
#pragma omp target device(any) map(a[0:n]) resources(4)
#pragma omp if_device(host) parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target device(any) map(a[0:n])
  {
#pragma omp target device(any) map(a[0:n])
    a[0] = 1;
  }
#pragma omp target device(any) map(a[0:n])
#pragma omp if_device(nvidia) teams distribute parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
}

// The diagnostics, in order (here at the end: checks above would move the lines).
// CHECK: {{^.*}}diag_any.c:8:23: error: unknown device kind 'amd' in 'if_device'; known kinds: host (the host's own cores), cpu or x86_64 (Spread's host devices), nvidia, nvptx or nvptx64 (NVIDIA GPUs){{$}}
// CHECK-NEXT: {{^ *}}8 | #pragma omp if_device(amd) parallel for{{$}}
// CHECK-NEXT: {{^}}      |                       ^{{$}}
// CHECK: {{^.*}}diag_any.c:12:23: error: 'if_device(nvptx)' duplicates an earlier entry of this 'target device(any)': each device kind and subarch can have one construct-set{{$}}
// CHECK: {{^.*}}diag_any.c:15:52: error: resources(150) is out of range: an instance holds 0 to 100 of its device's tokens{{$}}
// CHECK: {{^.*}}diag_any.c:18:29: error: 'if_device(host, ...)' takes no subarch: only nvidia has subarchs (sm_XY or ccXY){{$}}
// CHECK: {{^.*}}diag_any.c:21:31: error: malformed subarch 'sm9x' in 'if_device'; expected sm_XY or ccXY (compute capability X.Y, e.g. sm_90, cc35){{$}}
// CHECK: {{^.*}}diag_any.c:23:25: error: 'device(any)' is only allowed on a 'target' construct (a region the runtime may run on any device), not on 'target data': a data construct maps or copies data to one device, which it must name{{$}}
// CHECK: {{^.*}}diag_any.c:25:47: error: 'device(any)' is only allowed on a 'target' construct (a region the runtime may run on any device), not on 'target enter data': a data construct maps or copies data to one device, which it must name{{$}}
// CHECK: {{^.*}}diag_any.c:26:13: error: 'if_device' must follow a '#pragma omp target device(any)' line (directly, or after other 'if_device' lines of it){{$}}
// CHECK: {{^.*}}diag_any.c:28:26: error: 'resources' is only allowed on a 'target device(any)' construct or after an 'if_device' entry's construct-set (clang would ignore it here){{$}}
// CHECK: {{^.*}}diag_any.c:31:29: error: 'target' cannot appear in the construct-set of 'if_device(host)': the construct is already a 'target device(any)'; give the directives that run inside it (e.g. 'teams distribute parallel for'){{$}}
// CHECK: {{^.*}}diag_any.c:34:38: error: unknown directive 'frob' in the construct-set of 'if_device(host)'; a construct-set is made of 'teams', 'distribute', 'parallel', 'for', 'simd' and 'loop' with their clauses{{$}}
// CHECK: {{^.*}}diag_any.c:36:32: error: a 'target device(any)' with 'if_device' entries cannot also have a construct-set of its own (which version would it belong to?); move it into an 'if_device' entry{{$}}
// CHECK: {{^.*}}diag_any.c:39:54: error: resources(-3) is out of range: an instance holds 0 to 100 of its device's tokens{{$}}
// CHECK: {{^.*}}diag_any.c:41:27: error: 'device(any)' is only allowed on a 'target' construct (a region the runtime may run on any device), not on 'target update': a data construct maps or copies data to one device, which it must name{{$}}
// CHECK: {{^.*}}diag_any.c:42:38: error: 'device(any)' is only allowed on a 'target' construct (a region the runtime may run on any device), not on 'target spread': 'target spread' divides one loop among the devices it lists{{$}}
// CHECK: {{^.*}}diag_any.c:45:3: error: 'target device(any)' with the construct-set 'parallel for' must be followed by a for loop{{$}}
// CHECK: {{^.*}}diag_any.c:46:44: error: 'resources' on the 'target device(any)' line belongs to no version when there are 'if_device' entries; write it after each entry's construct-set{{$}}
// CHECK: {{^.*}}diag_any.c:51:1: error: a construct the driver lowers cannot be nested in the statement of a 'target device(any)' (the statement is copied once per version){{$}}
// CHECK: 18 errors generated.

