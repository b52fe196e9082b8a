// SPDX-License-Identifier: MIT
/* An event-driven worker in C: it idles, receives tasks at random times and marks each one for
 * gpumeter daemon (the default socket, or $GPUMETER_SOCKET), printing what the daemon measured.
 * Without a daemon it warns once and works unmeasured.
 *
 *   c_worker [TASKS [MAX_IDLE_MS]]        (defaults: 5 tasks, up to 2000 ms idle between) */
#define _POSIX_C_SOURCE 199309L /* nanosleep, clock_gettime */
#include <gpumeter/gpumeter.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&pause, NULL);
}

/* Stand-in for real work (decoding a frame, running a model): spin the CPU for `ms`. */
static void work(long ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile unsigned long sink = 0;
  do {
    for (int i = 0; i < 10000; ++i) sink += (unsigned long)i;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

/* An absent figure is NaN: print N/A for it, never "nan". */
static void print_figure(double value, const char* format) {
  if (isnan(value)) {
    printf("N/A");
  } else {
    printf(format, value);
  }
}

static void report(int number, int status, const gpumeter_task_result* result) {
  if (status != GPUMETER_OK || !result->has_usage) {
    printf("task %d: not measured (%s)\n", number, gpumeter_strerror(status));
    return;
  }
  printf("task %d: %.2f s; ", number, result->duration_seconds);
  if (result->gpu_count == 0) {
    printf("no GPU");  /* a CPU-only task: its GPU figures are absent (NaN), not 0 */
  } else {
    printf("%u GPU(s), SM ", result->gpu_count);
    print_figure(result->sm_percent, "%.1f%%");
    printf(", ");
    print_figure(result->energy_joules, "%.2f J");
  }
  printf("; CPU ");
  print_figure(result->cpu_user_seconds, "%.2f s user");
  printf("\n");
}

static void run_task(gpumeter_client* client, int number) {
  gpumeter_task* task = NULL;
  int status = client ? gpumeter_task_begin(client, "decode", "{\"stream\":\"cam0\"}", &task)
                      : GPUMETER_E_NO_DAEMON;
  work(100 + rand() % 400);
  gpumeter_task_result result = {.struct_size = sizeof result};
  if (task != NULL) status = gpumeter_task_end(task, &result);
  report(number, status, &result);
}

int main(int argc, char** argv) {
  int tasks = argc > 1 ? atoi(argv[1]) : 5;
  long max_idle_ms = argc > 2 ? atol(argv[2]) : 2000;
  gpumeter_client* client = NULL;
  int status = gpumeter_connect(NULL, &client);
  if (status != GPUMETER_OK) {
    fprintf(stderr, "c_worker: tasks are not measured: %s\n", gpumeter_strerror(status));
  }
  srand((unsigned)time(NULL));
  for (int number = 0; number < tasks; ++number) {
    sleep_ms(max_idle_ms > 0 ? rand() % max_idle_ms : 0); /* waiting for the next request */
    run_task(client, number);
  }
  gpumeter_disconnect(client);
  return 0;
}
