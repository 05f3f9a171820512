/* Native threads that block every signal for their whole life, as a native library's workers
   may: the profiler's capture signal never reaches them, yet their CPU belongs in the recording.
   Part of libtorture_helpers.so. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "torture_spin.h"

uint64_t torture_native_spin(uint64_t iterations);

struct masked_work {
  int index;
  uint64_t iterations;
  uint64_t checksum;
  uint64_t cpu_ns;
};

static void* masked_main(void* arg) {
  struct masked_work* w = arg;
  char name[16];
  snprintf(name, sizeof name, "masked-native-%d", w->index);
  pthread_setname_np(pthread_self(), name);
  w->checksum = torture_native_spin(w->iterations + (uint64_t)w->index);
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  w->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return NULL;
}

/* Runs `count` (at most 16) threads born with every signal blocked, each spinning `iterations`;
   returns the xor of their checksums and sets *cpu_ns to the CPU they used, or returns 0 and
   sets *cpu_ns to 0 when a thread could not be started. */
uint64_t torture_masked_threads(int count, uint64_t iterations, uint64_t* cpu_ns) {
  struct masked_work work[16];
  pthread_t threads[16];
  if (count > 16) count = 16;
  sigset_t all, saved;
  sigfillset(&all);
  /* A new thread inherits its creator's mask: blocked from its first instruction. */
  pthread_sigmask(SIG_BLOCK, &all, &saved);
  int started = 0;
  for (int i = 0; i < count; ++i) {
    work[i] = (struct masked_work){i, iterations, 0, 0};
    if (pthread_create(&threads[i], NULL, masked_main, &work[i]) != 0) break;
    ++started;
  }
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  uint64_t checksum = 0, cpu = 0;
  for (int i = 0; i < started; ++i) {
    pthread_join(threads[i], NULL);
    checksum ^= work[i].checksum;
    cpu += work[i].cpu_ns;
  }
  *cpu_ns = started == count ? cpu : 0;
  return started == count ? checksum : 0;
}
