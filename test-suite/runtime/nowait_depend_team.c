// `depend` chains of `target nowait` constructs inside a task team (parallel + single, the
// shape of Somier's spread versions), where libomp releases a task as soon as its predecessors'
// tasks complete while Spread may still run their device work. Every stage sleeps on its
// device before it writes, so a stage that starts before its predecessor's device work and
// copies back are done computes a wrong value. Successors of every kind: a target task on the
// same device and on another one, a host task, a target task whose `if` clause is false (its
// host fallback reads host memory), a `taskwait depend`, an `omp_all_memory` dependence, and
// nested taskgroups (the outer group's end waits for the inner group's constructs). Stages over
// data kept on the device, and stages that communicate through a `declare target` variable
// (nothing mapped in common: only `depend` orders them). Then target tasks run by threads that
// wait at a barrier (parallel + masked: the other threads run them in
// the region's end barrier) must be done when the region ends.
//
// Built with the pass (spread-cc), offloading target tasks are marked and their constructs are
// ordered on the device; built without it, libomp orders them (polled).
//
// RUN: %spread-cc -O1 %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_PROFILE=summary %libpath-run %t 2>&1 | FileCheck --check-prefix=OWNED %s
// RUN: %clang-offload -O1 %s -o %t.plain
// RUN: %libpath-run %t.plain | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#pragma omp declare target
static void slow(void) { usleep(2000); }
static long dev_value[4]; // one per device: constructs that share it map nothing in common
#pragma omp end declare target

#define N 256
#define CH 4

static int nd, bad;

static void expect(const char *what, long got, long want) {
  if (got != want && bad++ < 20)
    printf("FAIL %s: %ld, expected %ld\n", what, got, want);
}

static long a[CH][N], seen_host[CH], seen_fallback[CH], seen_wait[CH], total;

int main(void) {
  nd = omp_get_num_devices();
  if (nd < 1) {
    printf("FAIL: no devices\n");
    return 1;
  }
  int use_device = 1; // an `if` clause the compiler cannot fold

#pragma omp parallel num_threads(2)
#pragma omp single
  for (int rep = 0; rep < 3; rep++) {
    for (int c = 0; c < CH; c++)
      for (int i = 0; i < N; i++)
        a[c][i] = i;
    total = 0;
#pragma omp taskgroup
    {
      for (int c = 0; c < CH; c++) {
        long *x = a[c];
        int d = c % nd, e = (c + 1) % nd;
        // Stage 1 and 2 on the same device, stage 3 on the next one.
#pragma omp target nowait device(d) map(tofrom : x[0 : N]) depend(out : x[0])
        {
          slow();
          for (int i = 0; i < N; i++)
            x[i] += 1;
        }
#pragma omp target nowait device(d) map(tofrom : x[0 : N]) depend(inout : x[0])
        {
          slow();
          for (int i = 0; i < N; i++)
            x[i] *= 3;
        }
#pragma omp target nowait device(e) map(tofrom : x[0 : N]) depend(inout : x[0])
        {
          slow();
          for (int i = 0; i < N; i++)
            x[i] -= 2;
        }
        // A target task whose `if` is false runs on the host: it reads host memory.
#pragma omp target nowait device(d) if (!use_device) map(tofrom : x[0 : N]) depend(inout : x[0]) \
    map(from : seen_fallback[c : 1])
        {
          seen_fallback[c] = x[N - 1];
          for (int i = 0; i < N; i++)
            x[i] += 100;
        }
        // A host task reads what they wrote.
#pragma omp task depend(in : x[0]) firstprivate(c, x)
        seen_host[c] = x[N - 1];
        // Then a device stage again, reading the host fallback's writes.
#pragma omp target nowait device(e) if (use_device) map(tofrom : x[0 : N]) depend(inout : x[0])
        {
          slow();
          for (int i = 0; i < N; i++)
            x[i] *= 2;
        }
        // A nested taskgroup's constructs end with the outer group at the latest.
#pragma omp taskgroup
        {
#pragma omp target nowait device(d) map(tofrom : x[0 : N]) depend(inout : x[0])
          {
            slow();
            for (int i = 0; i < N; i++)
              x[i] += 5;
          }
        }
      }
      // Every chunk's total through an `omp_all_memory` dependence (after everything above).
#pragma omp task depend(inout : omp_all_memory) shared(total)
      for (int c = 0; c < CH; c++)
        total += a[c][0];
      // `taskwait depend` sees its chunk's stages done.
      for (int c = 0; c < CH; c++) {
        long *x = a[c];
#pragma omp target nowait device(c % nd) map(tofrom : x[0 : N]) depend(inout : x[0])
        {
          slow();
          for (int i = 0; i < N; i++)
            x[i] += 1000;
        }
#pragma omp taskwait depend(in : x[0])
        seen_wait[c] = x[0];
      }
    }
    for (int c = 0; c < CH; c++) {
      long i = N - 1;
      long s3 = (i + 1) * 3 - 2;
      expect("host task after the stages", seen_host[c], s3 + 100);
      expect("if(false) host fallback after device stages", seen_fallback[c], s3);
      for (int k = 0; k < N; k++) {
        long want = ((k + 1) * 3 - 2 + 100) * 2 + 5 + 1000;
        if (a[c][k] != want) {
          expect("chained stages, taskgroup end", a[c][k], want);
          break;
        }
      }
      expect("taskwait depend", seen_wait[c], ((0 + 1) * 3 - 2 + 100) * 2 + 5 + 1000);
    }
    expect("omp_all_memory task", total, (long)CH * ((1 * 3 - 2 + 100) * 2 + 5));
  }

  // Data kept on the devices (no copies between the stages): only the order of the stages on
  // the device keeps them apart.
  for (int c = 0; c < CH; c++) {
    long *x = a[c];
    for (int i = 0; i < N; i++)
      x[i] = i;
#pragma omp target enter data map(to : x[0 : N]) device(c % nd)
  }
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int c = 0; c < CH; c++) {
      long *x = a[c];
      int d = c % nd;
#pragma omp target nowait device(d) map(tofrom : x[0 : N]) depend(out : x[0])
      {
        slow();
        slow();
        slow();
        for (int i = 0; i < N; i++)
          x[i] += 1;
      }
#pragma omp target nowait device(d) map(tofrom : x[0 : N]) depend(inout : x[0])
      for (int i = 0; i < N; i++)
        x[i] *= 3;
#pragma omp target nowait device(d) map(tofrom : x[0 : N]) depend(inout : x[0])
      for (int i = 0; i < N; i++)
        x[i] -= 2;
#pragma omp target update from(x[0 : N]) device(d) nowait depend(in : x[0])
    }
#pragma omp taskwait
  }
  for (int c = 0; c < CH; c++) {
    long *x = a[c];
#pragma omp target exit data map(release : x[0 : N]) device(c % nd)
    for (int k = 0; k < N; k++)
      if (x[k] != (k + 1) * 3 - 2) {
        expect("stages over resident data", x[k], (k + 1) * 3 - 2);
        break;
      }
  }

  // Stages that communicate through a `declare target` variable on their device: they map
  // nothing in common, so only their `depend` clauses order them.
  long got[4] = {0};
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int d = 0; d < nd && d < 4; d++) {
#pragma omp target nowait device(d) depend(out : dev_value[d])
      {
        slow();
        slow();
        slow();
        dev_value[d] = 1 + d;
      }
#pragma omp target nowait device(d) depend(inout : dev_value[d])
      dev_value[d] = dev_value[d] * 10 + 2;
#pragma omp target nowait device(d) map(from : got[d : 1]) depend(in : dev_value[d])
      got[d] = dev_value[d];
    }
  }
  for (int d = 0; d < nd && d < 4; d++)
    expect("stages through a declare target variable", got[d], (1 + d) * 10 + 2);

  // Target tasks that the team's other threads run while they wait at the region's end barrier.
  static long m_out[16];
#pragma omp parallel num_threads(3)
  {
#pragma omp masked
    for (int k = 0; k < 16; k++) {
#pragma omp target nowait device(k % nd) map(tofrom : m_out[k : 1])
      {
        slow();
        m_out[k] = 7000 + k;
      }
    }
  }
  for (int k = 0; k < 16; k++)
    expect("masked's tasks, end of the parallel region", m_out[k], 7000 + k);

  printf("%s\n", bad ? "FAIL" : "every dependent saw its predecessors' device work done");
  return bad != 0;
}

// CHECK: every dependent saw its predecessors' device work done
// OWNED: spread: nowait constructs: {{[1-9][0-9]*}} owned by Spread, 0 polled by libomp
