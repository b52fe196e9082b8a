// SPDX-License-Identifier: MIT
/*
 * gpumeter.h: the C client of `gpumeter daemon` (libgpumeter-client.so).
 *
 * A worker marks when each task begins and ends; the daemon answers what the task used (GPU
 * engine time, GPU memory, energy, CPU time, peak RSS). The wire protocol is described in
 * docs/task-protocol.md; this header hides it behind opaque handles.
 *
 *   gpumeter_client* client;
 *   if (gpumeter_connect(NULL, &client) == GPUMETER_OK) {
 *     gpumeter_task* task;
 *     gpumeter_task_begin(client, "decode", "{\"stream\":\"cam3\"}", &task);
 *     ... work ...
 *     gpumeter_task_result result = {.struct_size = sizeof result};
 *     gpumeter_task_end(task, &result);
 *     gpumeter_disconnect(client);
 *   }
 *
 * Errors are negative ints (GPUMETER_E_*); gpumeter_strerror() names them. No function throws,
 * aborts or raises a signal (SIGPIPE included).
 *
 * Threads: every function may be called from any thread. A client handle may be shared by
 * threads, but its requests are serialised: while one thread's gpumeter_task_end() waits for
 * the figures, another thread's gpumeter_task_begin() on the same handle waits too (and its
 * task begins late). Threads that mark tasks concurrently should each connect their own
 * handle, or end tasks with a NULL result (no wait). A task handle belongs to one thread at a
 * time.
 */
#ifndef GPUMETER_GPUMETER_H
#define GPUMETER_GPUMETER_H

#include <stddef.h>
#include <stdint.h>

#if defined(GPUMETER_CLIENT_BUILDING)
#define GPUMETER_API __attribute__((visibility("default")))
#else
#define GPUMETER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. New codes may be added; treat any other negative value as a failure. */
#define GPUMETER_OK 0
#define GPUMETER_E_INVALID (-1)         /* a NULL handle or argument, or a bad struct_size */
#define GPUMETER_E_NO_DAEMON (-2)       /* no daemon listens at the socket (or it went away) */
#define GPUMETER_E_PROTOCOL (-3)        /* a reply that is not the protocol, or a bad request */
#define GPUMETER_E_NOT_PERMITTED (-4)   /* the socket or the task belongs to someone else */
#define GPUMETER_E_UNKNOWN_TASK (-5)    /* the task ended, was abandoned, or never existed */
#define GPUMETER_E_UNKNOWN_PROCESS (-6) /* the daemon cannot identify the calling process */
#define GPUMETER_E_LIMIT (-7)           /* too many open tasks or connections */
#define GPUMETER_E_DAEMON (-8)          /* the daemon reported an internal fault */
#define GPUMETER_E_IO (-9)              /* reading or writing the socket failed, or timed out */
#define GPUMETER_E_NO_MEMORY (-10)

/* Absent figures (the daemon's `null`, see docs/task-protocol.md) read as these sentinels. */
#define GPUMETER_UNAVAILABLE_U64 UINT64_MAX
/* Doubles that are absent are NaN (test with isnan()). */

/* NOLINTBEGIN(modernize-use-using): this header is C, which has no `using`. */
typedef struct gpumeter_client gpumeter_client;
typedef struct gpumeter_task gpumeter_task;

/*
 * What a task used, summed over the GPUs its process ran on. Versioned by size: the caller
 * sets struct_size = sizeof(gpumeter_task_result) as compiled against its header; the library
 * fills only the fields that fit, so new fields can be appended without breaking old callers.
 */
typedef struct gpumeter_task_result {
  size_t struct_size;          /* in: set by the caller */
  uint64_t task_id;            /* the daemon's task id */
  int64_t begin_time_us;       /* µs since the Unix epoch */
  int64_t end_time_us;         /* µs since the Unix epoch */
  double duration_seconds;     /* end - begin */
  int has_usage;               /* 0 when the daemon sent no figures (below are absent) */
  int low_confidence;          /* any GPU's window was too short or partly unsampled */
  uint32_t gpu_count;          /* GPUs with samples of the process; 0 for CPU-only tasks */
  double sm_busy_seconds;      /* Σ over GPUs of SM percent/100 x time */
  double sm_percent;           /* highest per-GPU average SM use over the window, % */
  double decoder_busy_seconds; /* Σ over GPUs */
  double encoder_busy_seconds; /* Σ over GPUs */
  double energy_joules;        /* Σ over GPUs: the task's share of board energy */
  uint64_t memory_peak_bytes;  /* Σ over GPUs of the peak GPU memory sampled */
  double cpu_user_seconds;     /* CPU time of the process in the window */
  double cpu_system_seconds;   /* CPU time of the process in the window */
  uint64_t peak_rss_bytes;     /* highest resident memory sampled */
} gpumeter_task_result;
/* NOLINTEND(modernize-use-using) */

/*
 * Connects to the daemon. socket_path NULL means the default: $GPUMETER_SOCKET, else
 * $XDG_RUNTIME_DIR/gpumeter.sock if it exists (or if the next does not), else
 * /run/gpumeter/gpumeter.sock. On success *out is a
 * client to free with gpumeter_disconnect(). A lost connection is reopened on the next request.
 * Errors: GPUMETER_E_INVALID, GPUMETER_E_NO_DAEMON, GPUMETER_E_NOT_PERMITTED, GPUMETER_E_IO.
 */
GPUMETER_API int gpumeter_connect(const char* socket_path, gpumeter_client** out);

/* Closes the connection and frees the client. Open tasks stay open in the daemon (they end
 * when the process exits); tasks begun through it must not be used afterwards. NULL is ok. */
GPUMETER_API void gpumeter_disconnect(gpumeter_client* client);

/*
 * Begins a task now. name: 1-256 bytes of UTF-8. labels_json: NULL, or a JSON object of
 * strings such as {"stream":"cam3"} (at most 16). On success *out is a task to pass to
 * gpumeter_task_end(), exactly once.
 */
GPUMETER_API int gpumeter_task_begin(gpumeter_client* client, const char* name,
                                     const char* labels_json, gpumeter_task** out);

/* The daemon's id of a task, or 0 for NULL. */
GPUMETER_API uint64_t gpumeter_task_id(const gpumeter_task* task);

/*
 * Ends a task now, waits for its figures (typically one to two seconds) and frees the task,
 * whatever the outcome. result may be NULL (then the daemon is told not to wait); otherwise
 * result->struct_size must be set, and on success the fields that fit are filled.
 */
GPUMETER_API int gpumeter_task_end(gpumeter_task* task, gpumeter_task_result* result);

/* A static English description of an error code; never NULL. */
GPUMETER_API const char* gpumeter_strerror(int error);

#ifdef __cplusplus
}
#endif

#endif /* GPUMETER_GPUMETER_H */
