// SPDX-License-Identifier: MIT
/* A C program (compiled as C, linked only against libgpumeter-client.so) that checks the C API
 * against the fake daemon (fake_daemon.py). Usage: c_consumer MODE SOCKET, where MODE is
 * "served" (the fake answers), "refused" (it refuses begin with not_permitted) or "absent"
 * (nothing listens at SOCKET). Prints each failed check and exits 1 if any failed. */
#include <gpumeter/gpumeter.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(condition)                                                      \
  do {                                                                        \
    if (!(condition)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

static void full_result(gpumeter_client* client) {
  gpumeter_task* task = NULL;
  CHECK(gpumeter_task_begin(client, "decode", "{\"stream\":\"cam3\"}", &task) == GPUMETER_OK);
  CHECK(gpumeter_task_id(task) > 0);
  gpumeter_task_result result;
  memset(&result, 0, sizeof result);
  result.struct_size = sizeof result;
  CHECK(gpumeter_task_end(task, &result) == GPUMETER_OK);
  CHECK(result.struct_size == sizeof result);
  CHECK(result.has_usage == 1);
  CHECK(result.gpu_count == 1);
  CHECK(result.sm_percent == 42.5);
  CHECK(result.energy_joules == 12.25);
  CHECK(result.memory_peak_bytes == 1073741824u);
  CHECK(result.cpu_user_seconds == 0.25);
  CHECK(result.peak_rss_bytes == 2097152u);
  CHECK(result.duration_seconds == 1.2);
  CHECK(isnan(result.encoder_busy_seconds)); /* the fake sends no encoder figures */
}

/* A caller compiled against an older, shorter struct: nothing past its size is written. */
static void older_struct(gpumeter_client* client) {
  gpumeter_task* task = NULL;
  CHECK(gpumeter_task_begin(client, "decode", NULL, &task) == GPUMETER_OK);
  gpumeter_task_result result;
  memset(&result, 0xAB, sizeof result);
  result.struct_size = offsetof(gpumeter_task_result, duration_seconds);
  CHECK(gpumeter_task_end(task, &result) == GPUMETER_OK);
  CHECK(result.task_id > 0);
  CHECK(result.end_time_us > result.begin_time_us);
  const unsigned char* tail = (const unsigned char*)&result.duration_seconds;
  for (size_t i = 0; i < sizeof result - offsetof(gpumeter_task_result, duration_seconds); ++i) {
    CHECK(tail[i] == 0xAB);
  }
}

static void misuse(gpumeter_client* client) {
  gpumeter_task* task = (gpumeter_task*)&failures;
  CHECK(gpumeter_task_begin(client, "decode", "[not an object]", &task) == GPUMETER_E_INVALID);
  CHECK(task == NULL);
  CHECK(gpumeter_task_begin(client, "", NULL, &task) == GPUMETER_E_INVALID);
  CHECK(gpumeter_task_begin(NULL, "decode", NULL, &task) == GPUMETER_E_INVALID);
  CHECK(gpumeter_task_end(NULL, NULL) == GPUMETER_E_INVALID);
  CHECK(gpumeter_connect(NULL, NULL) == GPUMETER_E_INVALID);
  gpumeter_disconnect(NULL);
  /* Ending without a result asks the daemon not to wait. */
  CHECK(gpumeter_task_begin(client, "quick", NULL, &task) == GPUMETER_OK);
  CHECK(gpumeter_task_end(task, NULL) == GPUMETER_OK);
}

static void served(const char* socket_path) {
  gpumeter_client* client = NULL;
  CHECK(gpumeter_connect(socket_path, &client) == GPUMETER_OK);
  if (client == NULL) return;
  full_result(client);
  older_struct(client);
  misuse(client);
  gpumeter_disconnect(client);
  /* NULL is the default socket, which the fake names in GPUMETER_SOCKET. */
  CHECK(gpumeter_connect(NULL, &client) == GPUMETER_OK);
  gpumeter_disconnect(client);
}

static void refused(const char* socket_path) {
  gpumeter_client* client = NULL;
  CHECK(gpumeter_connect(socket_path, &client) == GPUMETER_OK);
  gpumeter_task* task = NULL;
  CHECK(gpumeter_task_begin(client, "decode", NULL, &task) == GPUMETER_E_NOT_PERMITTED);
  CHECK(task == NULL);
  gpumeter_disconnect(client);
}

static void absent(const char* socket_path) {
  gpumeter_client* client = (gpumeter_client*)&failures;
  CHECK(gpumeter_connect(socket_path, &client) == GPUMETER_E_NO_DAEMON);
  CHECK(client == NULL);
  for (int code = 1; code >= -12; --code) CHECK(gpumeter_strerror(code) != NULL);
  CHECK(strcmp(gpumeter_strerror(GPUMETER_E_NO_DAEMON), gpumeter_strerror(GPUMETER_OK)) != 0);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: c_consumer served|refused|absent SOCKET\n");
    return 2;
  }
  if (strcmp(argv[1], "served") == 0)
    served(argv[2]);
  else if (strcmp(argv[1], "refused") == 0)
    refused(argv[2]);
  else
    absent(argv[2]);
  printf("%d failed checks\n", failures);
  return failures == 0 ? 0 : 1;
}
