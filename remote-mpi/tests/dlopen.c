/* Loads libspread_remote_mpi.so the way Spread's runtime does, from a program that does not link
 * MPI, and moves a message between two ranks through it:
 *
 *   cc -O1 -Iremote-mpi/include remote-mpi/tests/dlopen.c -ldl -o dlopen-check
 *   mpirun --allow-run-as-root --oversubscribe -np 2 ./dlopen-check LIB local|global
 *
 * local: dlopen(LIB, RTLD_NOW | RTLD_LOCAL); global: RTLD_NOW | RTLD_GLOBAL. Exit status 0 and
 * "dlopen-check: rank R OK (local)" on success. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spread_mpi.h"

#define SYM(name) \
  __typeof__(&name) p_##name = (__typeof__(&name))dlsym(lib, #name); \
  if (!p_##name) { fprintf(stderr, "dlopen-check: %s: %s\n", #name, dlerror()); return 2; }

static int fail(const char *what, int32_t rc, void (*errstr)(int32_t, char *, size_t)) {
  char text[256];
  errstr(rc, text, sizeof text);
  fprintf(stderr, "dlopen-check: %s: %d: %s\n", what, rc, text);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[2], "local") != 0 && strcmp(argv[2], "global") != 0)) {
    fprintf(stderr, "usage: %s LIB local|global\n", argv[0]);
    return 2;
  }
  int mode = RTLD_NOW | (strcmp(argv[2], "global") == 0 ? RTLD_GLOBAL : RTLD_LOCAL);
  void *lib = dlopen(argv[1], mode);
  if (!lib) {
    fprintf(stderr, "dlopen-check: dlopen: %s\n", dlerror());
    return 2;
  }
  SYM(spread_mpi_abi_version) SYM(spread_mpi_init) SYM(spread_mpi_isend) SYM(spread_mpi_test)
  SYM(spread_mpi_improbe) SYM(spread_mpi_mrecv) SYM(spread_mpi_finalize)
  SYM(spread_mpi_error_string) SYM(spread_mpi_abort)
  if (p_spread_mpi_abi_version() != SPREAD_MPI_ABI_VERSION) return 2;

  int32_t rank, size, node, tag_ub, rc;
  char host[64], err[256];
  rc = p_spread_mpi_init(&rank, &size, &node, &tag_ub, host, sizeof host, err, sizeof err);
  if (rc != 0) {
    fprintf(stderr, "dlopen-check: spread_mpi_init: %d: %s\n", rc, err);
    return 1;
  }
  if (size != 2) {
    fprintf(stderr, "dlopen-check: run with -np 2\n");
    p_spread_mpi_abort(2);
  }
  /* 1 MiB from rank 0 to rank 1 and back (large enough for the rendezvous protocol). */
  size_t len = 1 << 20;
  uint8_t *buf = malloc(len);
  if (!buf) p_spread_mpi_abort(2);
  for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(i * 7 + 1);
  for (int round = 0; round < 2; round++) {
    if (rank == round) {
      uint64_t req;
      int32_t done = 0;
      if ((rc = p_spread_mpi_isend(1 - rank, 5, buf, len, &req))) return fail("isend", rc, p_spread_mpi_error_string);
      while (!done)
        if ((rc = p_spread_mpi_test(req, &done))) return fail("test", rc, p_spread_mpi_error_string);
    } else {
      int32_t found = 0, src, tag;
      size_t n;
      uint64_t msg;
      while (!found)
        if ((rc = p_spread_mpi_improbe(&found, &src, &tag, &n, &msg))) return fail("improbe", rc, p_spread_mpi_error_string);
      if (n != len || src != 1 - rank || tag != 5) {
        fprintf(stderr, "dlopen-check: got %zu bytes from %d tag %d\n", n, src, tag);
        p_spread_mpi_abort(1);
      }
      memset(buf, 0, len);
      if ((rc = p_spread_mpi_mrecv(msg, buf, n))) return fail("mrecv", rc, p_spread_mpi_error_string);
      for (size_t i = 0; i < len; i++)
        if (buf[i] != (uint8_t)(i * 7 + 1)) {
          fprintf(stderr, "dlopen-check: byte %zu differs\n", i);
          p_spread_mpi_abort(1);
        }
    }
  }
  free(buf);
  if ((rc = p_spread_mpi_finalize())) return fail("finalize", rc, p_spread_mpi_error_string);
  printf("dlopen-check: rank %d of %d (node %d, host %s) OK (%s)\n", rank, size, node, host, argv[2]);
  return 0;
}
