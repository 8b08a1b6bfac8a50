/* Somier, baseline (seed 000, Listing 9): one buffer at a time on one device with the existing
 * target directives. A buffer is `planes` planes (what one device holds); its data are mapped
 * with target enter data (positions with one halo plane on each side), the five kernels run as
 * target teams distribute parallel for, and target exit data brings the results back. */
#include <omp.h>
#include <stdio.h>

#include "somier.h"

int somier_baseline(somier_t *s, const somier_cfg_t *cfg) {
  const int64_t n = s->n, P = s->P, B = cfg->planes;
  const int dev = cfg->dv[0];
  double *V = s->V, *F = s->F, *A = s->A, *C = s->C;

  for (int step = 0; step < cfg->steps; step++) {
    double *X = s->X, *Xn = s->Xn;
    /* process 1 buffer at a time */
    for (int64_t bs = 1; bs < n - 1; bs += B) {
      const int64_t bl = bs + B <= n - 1 ? B : n - 1 - bs;

      /* map data from host to device */
#pragma omp target enter data device(dev)                                                   \
    map(to : X[(bs - 1) * P : (bl + 2) * P], V[bs * P : bl * P])                              \
    map(alloc : F[bs * P : bl * P], A[bs * P : bl * P], Xn[bs * P : bl * P], C[bs * 3 : bl * 3])

      /* perform kernel computations in device */
      // forces kernel
#pragma omp target teams distribute parallel for device(dev)                                \
    map(to : X[(bs - 1) * P : (bl + 2) * P]) map(from : F[bs * P : bl * P])
      for (int64_t i = bs; i < bs + bl; i++)
        somier_forces_plane(X, F, n, i);
      // accelerations kernel
#pragma omp target teams distribute parallel for device(dev)                                \
    map(to : F[bs * P : bl * P]) map(from : A[bs * P : bl * P])
      for (int64_t i = bs; i < bs + bl; i++)
        somier_accel_plane(F, A, n, i);
      // velocities kernel
#pragma omp target teams distribute parallel for device(dev)                                \
    map(to : A[bs * P : bl * P]) map(tofrom : V[bs * P : bl * P])
      for (int64_t i = bs; i < bs + bl; i++)
        somier_velocity_plane(A, V, n, i);
      // positions kernel
#pragma omp target teams distribute parallel for device(dev)                                \
    map(to : X[(bs - 1) * P : (bl + 2) * P], V[bs * P : bl * P]) map(from : Xn[bs * P : bl * P])
      for (int64_t i = bs; i < bs + bl; i++)
        somier_position_plane(X, V, Xn, n, i);
      // centers kernel (manual reduction: one partial sum per plane)
#pragma omp target teams distribute parallel for device(dev)                                \
    map(to : Xn[bs * P : bl * P]) map(from : C[bs * 3 : bl * 3])
      for (int64_t i = bs; i < bs + bl; i++)
        somier_center_plane(Xn, C, n, i);

      /* map data from device to host */
#pragma omp target exit data device(dev)                                                    \
    map(from : F[bs * P : bl * P], A[bs * P : bl * P], V[bs * P : bl * P], Xn[bs * P : bl * P], \
            C[bs * 3 : bl * 3])                                                               \
    map(release : X[(bs - 1) * P : (bl + 2) * P])
    }
    somier_centers(s);
    somier_swap(s);
  }
  return 0;
}
