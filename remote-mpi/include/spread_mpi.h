/* Spread's MPI transport plugin, libspread_remote_mpi.so: C ABI version 1.
 *
 * Spread's runtime dlopens this library when SPREAD_REMOTE=mpi and calls it from one thread (its
 * communication thread, which also calls spread_mpi_init and spread_mpi_finalize). The
 * reference is the crate documentation in remote-mpi/src/lib.rs; this header mirrors it.
 *
 * Every int32_t result: 0 on success, an MPI error code when an MPI call failed (the plugin's
 * private communicator has MPI_ERRORS_RETURN), or SPREAD_MPI_LOCAL_ERROR (-1) when the plugin
 * refused the call itself. spread_mpi_error_string gives the text of either (for -1: the
 * message of the plugin's most recent refusal).
 *
 * Request and message handles are opaque, never 0, and dead once released; a dead handle is
 * refused with -1.
 */
#ifndef SPREAD_MPI_H
#define SPREAD_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPREAD_MPI_ABI_VERSION 1
#define SPREAD_MPI_LOCAL_ERROR (-1)

/* The ABI version this library implements: SPREAD_MPI_ABI_VERSION. */
uint32_t spread_mpi_abi_version(void);

/* MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE), accepting MPI_THREAD_FUNNELED or better
 * (under FUNNELED every later call must come from this thread). Duplicates MPI_COMM_WORLD into a
 * private communicator with MPI_ERRORS_RETURN, used by everything below. Reports this rank, the
 * number of ranks, node (the lowest rank sharing this rank's node, MPI_COMM_TYPE_SHARED),
 * tag_ub (MPI_TAG_UB) and host (MPI_Get_processor_name, truncated to host_len with the NUL).
 * Output pointers may be NULL. Fails with -1 and a message in err (truncated to err_len with the
 * NUL) when MPI is already initialised (the program uses MPI) or finalised, when called twice,
 * or when MPI grants less than FUNNELED. A failure after MPI_Init_thread leaves MPI initialised:
 * end with spread_mpi_abort or spread_mpi_finalize. */
int32_t spread_mpi_init(int32_t *rank, int32_t *size, int32_t *node, int32_t *tag_ub,
                        char *host, size_t host_len, char *err, size_t err_len);

/* MPI_Isend of len bytes (len <= INT32_MAX, else -1) at buf to rank dest with tag; *req gets a
 * handle. buf must stay valid and unchanged until spread_mpi_test reports the send done; it may
 * be NULL when len is 0. */
int32_t spread_mpi_isend(int32_t dest, int32_t tag, const uint8_t *buf, size_t len,
                         uint64_t *req);

/* MPI_Test: *done = 1 when the send finished (the handle is then released), else 0. On an MPI
 * error the handle is released if MPI released the request. */
int32_t spread_mpi_test(uint64_t req, int32_t *done);

/* MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG): *found = 1 with *src, *tag, *len (bytes) and *msg,
 * a handle for spread_mpi_mrecv (the message is matched and must be received); else *found = 0.
 * found and msg must not be NULL; src, tag and len may be. */
int32_t spread_mpi_improbe(int32_t *found, int32_t *src, int32_t *tag, size_t *len,
                           uint64_t *msg);

/* MPI_Mrecv of the probed message into buf of len bytes (at least the probed length, else -1
 * and the message stays pending). The handle is released, also on an MPI error. */
int32_t spread_mpi_mrecv(uint64_t msg, uint8_t *buf, size_t len);

/* MPI_Abort(MPI_COMM_WORLD, code): ends every rank. Without an active MPI: exit(code). */
#if defined(__cplusplus)
[[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Noreturn
#endif
void spread_mpi_abort(int32_t code);

/* Frees the private communicator, then MPI_Finalize. Refused (-1, nothing changed) while sends
 * are not reported done or probed messages not received. */
int32_t spread_mpi_finalize(void);

/* The text for a result code of the functions above, NUL-terminated, truncated to len. */
void spread_mpi_error_string(int32_t code, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SPREAD_MPI_H */
