// hold-in-handler PID THREAD-NAME: stops the named thread of process PID inside clrscope's capture
// handler, as a debugger holding it there would, prints HELD, waits for a line on stdin, then lets
// the thread go and exits 0. The torture suite uses it to detach while a handler cannot finish.
//
// The thread is stopped (ptrace) at moments of this program's choosing until it is found running
// code of libclrscope with its stack pointer well below the highest one seen there, or at the
// handler's door (its first instruction, the highest), from where it is stepped a few dozen
// instructions in. The handler's first instructions come before it counts itself as running, so a
// stop there is not one the detach could see. In the plain build the handler counts itself 104 bytes below its entry
// (six pushes and its frame), well inside the 256 asked; an AddressSanitizer build calls deeper
// first, so this is for the plain build. The thread named must only run clrscope's code in its
// signal handler (a thread burning CPU in managed code does).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANGES 16

static uintptr_t lo_of[MAX_RANGES], hi_of[MAX_RANGES];
static int ranges;

static pid_t find_thread(pid_t pid, const char* name) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR* dir = opendir(path);
  if (dir == NULL) return 0;
  pid_t found = 0;
  struct dirent* e;
  while ((e = readdir(dir)) != NULL && found == 0) {
    if (e->d_name[0] == '.') continue;
    char comm_path[400], comm[64] = {0};
    snprintf(comm_path, sizeof comm_path, "%s/%s/comm", path, e->d_name);
    FILE* f = fopen(comm_path, "r");
    if (f == NULL) continue;
    if (fgets(comm, sizeof comm, f) != NULL) {
      comm[strcspn(comm, "\n")] = 0;
      if (strcmp(comm, name) == 0) found = (pid_t)atoi(e->d_name);
    }
    fclose(f);
  }
  closedir(dir);
  return found;
}

static void find_library_code(pid_t pid) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE* f = fopen(path, "r");
  if (f == NULL) return;
  while (fgets(line, sizeof line, f) != NULL && ranges < MAX_RANGES) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {0};
    if (strstr(line, "libclrscope") == NULL) continue;
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x') continue;
    lo_of[ranges] = lo;
    hi_of[ranges] = hi;
    ranges++;
  }
  fclose(f);
}

static int in_library(uintptr_t pc) {
  for (int i = 0; i < ranges; ++i) {
    if (pc >= lo_of[i] && pc < hi_of[i]) return 1;
  }
  return 0;
}

static void spin_ns(long ns) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

// Stops the thread (PTRACE_INTERRUPT) and waits for that stop, passing on signals that reach it
// first. Returns 0, or an exit code.
static int stop_thread(pid_t tid) {
  if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) return 11;
  for (int polls = 0;; ++polls) {
    int status = 0;
    const pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
    if (got == 0) {
      if (polls > 200000) return 12;
      // A signal's stop that came first can consume the interrupt: ask again now and then.
      if (polls % 1000 == 999 && ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) return 11;
      struct timespec wait = {0, 100000};
      nanosleep(&wait, NULL);
      continue;
    }
    if (got != tid || !WIFSTOPPED(status)) return 12;
    if ((status >> 16) == PTRACE_EVENT_STOP) return 0;
    if (ptrace(PTRACE_CONT, tid, NULL, (void*)(uintptr_t)WSTOPSIG(status)) != 0) return 13;
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0) return 11;
  }
}

// Says so, waits for a line on stdin, and lets the thread go.
static int hold(pid_t tid) {
  printf("HELD %d\n", (int)tid);
  fflush(stdout);
  char line[64];
  if (fgets(line, sizeof line, stdin) == NULL) {
    // Whoever drives us went away: let the thread go all the same.
  }
  return ptrace(PTRACE_DETACH, tid, NULL, NULL) == 0 ? 0 : 15;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: hold-in-handler PID THREAD-NAME\n");
    return 1;
  }
  const pid_t pid = (pid_t)atoi(argv[1]);
  const pid_t tid = find_thread(pid, argv[2]);
  if (tid == 0) {
    fprintf(stderr, "hold-in-handler: process %d has no thread named %s\n", (int)pid, argv[2]);
    return 1;
  }
  find_library_code(pid);
  if (ranges == 0) {
    fprintf(stderr, "hold-in-handler: libclrscope is not loaded in process %d\n", (int)pid);
    return 1;
  }
  if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
    fprintf(stderr, "hold-in-handler: cannot trace thread %d: %s\n", (int)tid, strerror(errno));
    return 3;
  }
  uintptr_t highest = 0, lowest = UINTPTR_MAX, last_pc = 0;
  int in_library_stops = 0, at_highest = 0;
  for (int attempt = 0; attempt < 50000; ++attempt) {
    const int stopped = stop_thread(tid);
    if (stopped != 0) return stopped;
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) != 0) return 14;
    const int ours = in_library(regs.rip);
    if (ours && regs.rsp > highest) {
      highest = regs.rsp;
      at_highest = 0;
    }
    if (ours && regs.rsp == highest) ++at_highest;
    if (ours && regs.rsp < lowest) lowest = regs.rsp;
    in_library_stops += ours;
    if (ours) last_pc = regs.rip - lo_of[0];
    if (ours && regs.rsp + 256 < highest && highest - regs.rsp < 65536) return hold(tid);
    int pending = 0;  // a signal whose stop came while stepping: delivered when the thread goes on
    if (ours && regs.rsp == highest && at_highest >= 2) {
      // At the handler's door (its first instruction, where every delivery puts it, so seen more
      // than once with the same stack pointer; a stop deeper in varies): step it
      // a few dozen instructions in, past its count of itself (the 11th instruction in the plain
      // build), and hold it there if it is still in the library. Resuming it for a few
      // microseconds instead found it back at the door every time in some runs.
      const int steps = 40 + attempt % 40;
      int stepped = 0;
      for (; stepped < steps; ++stepped) {
        if (ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL) != 0) return 17;
        int status = 0;
        if (waitpid(tid, &status, __WALL) != tid || !WIFSTOPPED(status)) return 18;
        if (WSTOPSIG(status) != SIGTRAP) {
          pending = WSTOPSIG(status);  // give up this try; the signal is not lost
          break;
        }
      }
      if (stepped == steps && ptrace(PTRACE_GETREGS, tid, NULL, &regs) == 0 && in_library(regs.rip) && regs.rsp < highest) {
        return hold(tid);
      }
    }
    if (ptrace(PTRACE_CONT, tid, NULL, (void*)(uintptr_t)pending) != 0) return 16;
    if (ours) spin_ns(1000L + (attempt % 20) * 1000L);
    else {
      struct timespec gap = {0, (attempt * 7919L) % 400000L};
      nanosleep(&gap, NULL);
    }
  }
  ptrace(PTRACE_DETACH, tid, NULL, NULL);
  printf("NOT FOUND: %d of 50000 stops in libclrscope (the last at %#lx past its first code mapping), stack pointers %#lx to %#lx\n",
         in_library_stops, (unsigned long)last_pc, (unsigned long)(lowest == UINTPTR_MAX ? 0 : lowest), (unsigned long)highest);
  return 2;
}
