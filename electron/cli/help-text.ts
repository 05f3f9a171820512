// What `clrscope --help` and `clrscope <command> --help` print.

export const MAIN_HELP = `clrscope: a profiler for .NET programs

Usage:
  clrscope record [options] -- COMMAND [ARGS...]   profile a program from its start
  clrscope counters (--pid PID | -- COMMAND...)     the runtime's counters, live
  clrscope demo [--seconds N]                      record the bundled demo program
  clrscope help [COMMAND]                          show help

Run 'clrscope record --help' for the recording options.
`;

export const RECORD_HELP = `Usage: clrscope record [options] -- COMMAND [ARGS...]

Launches COMMAND with clrscope's profiler loaded into its .NET runtime
(CORECLR_ENABLE_PROFILING / CORECLR_PROFILER / CORECLR_PROFILER_PATH) and
records CPU time and wall time of every managed thread until the program
exits, the duration ends, or Ctrl-C. The program's stdin, stdout and stderr
are its own, and clrscope exits with the program's exit code (128+N when a
signal N ended it).

Options:
  -o, --output FILE     where to write the recording (default: clrscope.pb.gz).
                        The format follows the extension: .pb.gz, .pb or .pprof
                        write gzipped pprof (go tool pprof -sample_index=cpu|wall).
  --duration SECONDS    stop after this long; the program is then asked to exit
                        as Ctrl-C would ask it (SIGINT, then SIGTERM, SIGKILL)
  --interval MS         sampling period in milliseconds, 1 to 1000 (default 10):
                        one CPU sample per MS of CPU a thread uses, one wall
                        sample per MS of elapsed time per thread (at most 64
                        threads per tick, in rotation)
  --wall, --no-wall     take wall-time samples too (default) or CPU only
  --pauses FILE.json    also write every runtime suspension (GC pauses and
                        others) as a JSON array of {startNs, durationNs,
                        suspendNs, reason, generation, induced, aborted};
                        generation is null for suspensions without a GC
  -h, --help            show this help

When it ends, record prints to stderr the samples taken and dropped, the
ten methods with the most CPU time and wall time, and the GC pauses per
generation (count, p50/p90/p99/max, total), measured exactly from the
runtime's suspend and resume notifications. Self time is charged to the
innermost managed frame, so time a thread spends waiting inside the runtime
or libc counts against the managed method that waited.

Example:
  clrscope record -o app.pb.gz --duration 30 -- dotnet MyService.dll --port 5000
  go tool pprof -top -sample_index=cpu app.pb.gz
`;

export const DEMO_HELP = `Usage: clrscope demo [--seconds N] [-o FILE]

Records the bundled demo program (test/targets/Demo, a small order service
with CPU-heavy, allocating, waiting and sleeping threads) for N seconds
(default 10) and prints what it found.
`;

export const COUNTERS_HELP = `Usage: clrscope counters (--pid PID | -- COMMAND [ARGS...]) [options]

Shows the runtime's counters live: GC collections per generation, induced GCs,
heap sizes per generation and the large object heap, promoted bytes, % time
in GC, pinned objects and GC handles, exceptions thrown, filters and finallys
executed, methods and IL bytes jitted, logical and physical threads, lock
contentions, classes and assemblies loaded. They are read straight from the
process's counters block: shared memory that clrscope's profiler writes in the
layout of the .NET Framework's perf-counter IPC block. Reading costs the
target nothing; there is no event session and no counter provider.

With -- COMMAND, the program is started with the profiler (counters only, no
stack sampling) and its own output goes to stderr; clrscope exits with its
exit code. With --pid, the process must already carry the profiler (started
by clrscope). Either way the last line printed holds the final values.

Options:
  -p, --pid PID          a process started under clrscope
  --refresh MS           how often to read, 10 to 3600000 ms (default 1000)
  --format FORMAT        table (default), json (one object per line per
                         refresh: timestamp, pid, then gc, contexts, interop,
                         loading, exceptions, locksAndThreads, jit, security
                         with camelCase fields) or csv (a header, then a row
                         per refresh)
  -h, --help             show this help
`;
