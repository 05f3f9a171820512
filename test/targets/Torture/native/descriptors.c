/* What a daemon or a process supervisor does to the descriptors it inherited: closes the sockets
   among them, then opens its own, which take the lowest free numbers. Part of
   libtorture_helpers.so, called from Clrscope.Targets.Torture.Descriptors. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Closes every socket above stderr but the standard streams' duplicates, one by one as
   /proc/self/fd lists them, as a daemon closes what it inherited. Sockets, not every descriptor: a .NET runtime keeps its JIT's double-mapped
   memory (a memfd), its assemblies and its wake-up pipes open, and a process that closes those
   dies of SIGSEGV at its next JIT compilation, with or without a profiler. Returns how many were
   closed (or -errno). */
/* Whether `st` is the file of stdin, stdout or stderr: the runtime's Console writes through
   duplicates of them, which are sockets when a parent gave the program socket pairs (Node does). */
static int standard_stream(const struct stat* st) {
  for (int fd = 0; fd <= 2; ++fd) {
    struct stat s;
    if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino) return 1;
  }
  return 0;
}

int torture_close_sockets_above_stderr(void) {
  int fds[4096];
  int n = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == NULL) return -errno;
  const int own = dirfd(dir);
  struct dirent* e;
  while ((e = readdir(dir)) != NULL && n < 4096) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const int fd = atoi(e->d_name);
    struct stat st;
    if (fd > 2 && fd != own && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && !standard_stream(&st)) fds[n++] = fd;
  }
  closedir(dir);
  for (int i = 0; i < n; ++i) close(fds[i]);
  return n;
}

/* The program's own byte at position `i` of block `round` of pair `pair`, direction `dir`. */
static unsigned char pattern(int pair, int round, int dir, int i) {
  return (unsigned char)(pair * 131 + round * 31 + dir * 17 + i * 7 + (i >> 8));
}

/* Reads what is already waiting on `fd` without blocking: bytes that are not the program's. */
static long drain_foreign(int fd) {
  unsigned char buf[4096];
  long total = 0;
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) return total;
    total += n;
  }
}

/* Passes one block from `from` to `to` and checks it. */
static void pass_block(int from, int to, int pair, int round, int dir, int block, long* out) {
  unsigned char sent[8192], got[8192];
  for (int i = 0; i < block; ++i) sent[i] = pattern(pair, round, dir, i);
  ssize_t w = 0;
  while (w < block) {
    const ssize_t n = send(from, sent + w, (size_t)(block - w), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out[4] += 1; /* send failures */
      return;
    }
    w += n;
  }
  ssize_t r = 0;
  while (r < block) {
    struct pollfd p = {to, POLLIN, 0};
    /* Bytes that do not come within a second were taken by someone else. */
    if (poll(&p, 1, 1000) <= 0) break;
    const ssize_t n = recv(to, got + r, (size_t)(block - r), MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    r += n;
  }
  out[0] += r;
  out[3] += block - r; /* missing */
  for (ssize_t i = 0; i < r; ++i) {
    if (got[i] != sent[i]) out[1] += 1; /* wrong */
  }
  /* Anything more, at either end, is not the program's. */
  out[2] += drain_foreign(to) + drain_foreign(from);
}

/* Makes `pairs` Unix socket pairs and, `rounds` times, passes a block of `block` bytes (at most
   8192) of a known pattern each way through each, pausing `pause_us` between rounds; the pairs
   are closed and made again every `reopen_every` rounds. out[0] bytes received, out[1] of them
   wrong, out[2] bytes that arrived and were not sent by the program, out[3] bytes sent that never
   arrived, out[4] failures to send or to make a pair, out[5] the lowest descriptor a pair got.
   Returns 0. */
int torture_socket_pairs(int pairs, int rounds, int block, int pause_us, int reopen_every, long* out) {
  int fds[64][2];
  if (pairs > 64) pairs = 64;
  if (block > 8192) block = 8192;
  memset(out, 0, 6 * sizeof(long));
  out[5] = 1 << 30;
  int open_pairs = 0;
  for (int round = 0; round < rounds; ++round) {
    if (round % reopen_every == 0) {
      for (int k = 0; k < open_pairs; ++k) {
        close(fds[k][0]);
        close(fds[k][1]);
      }
      open_pairs = 0;
      for (int k = 0; k < pairs; ++k) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds[k]) != 0) {
          out[4] += 1;
          break;
        }
        ++open_pairs;
        if (fds[k][0] < out[5]) out[5] = fds[k][0];
      }
    }
    for (int k = 0; k < open_pairs; ++k) {
      pass_block(fds[k][0], fds[k][1], k, round, 0, block, out);
      pass_block(fds[k][1], fds[k][0], k, round, 1, block, out);
    }
    if (pause_us > 0) {
      struct timespec ts = {0, (long)pause_us * 1000L};
      nanosleep(&ts, NULL);
    }
  }
  for (int k = 0; k < open_pairs; ++k) {
    close(fds[k][0]);
    close(fds[k][1]);
  }
  return 0;
}
