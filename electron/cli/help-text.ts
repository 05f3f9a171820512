// What `clrscope --help` and `clrscope <command> --help` print.

import { formatHelpTable } from '../../structs/formats/registry.js';

export const MAIN_HELP = `clrscope: a profiler for .NET programs

Usage:
  clrscope record [options] -- COMMAND [ARGS...]   profile a program from its start
  clrscope counters (--pid PID | -- COMMAND...)     the runtime's counters, live
  clrscope measure (--pid PID | -- COMMAND...) --method NS.TYPE.METHOD
                                                   exact calls and latency of chosen methods
  clrscope demo [--seconds N]                      record the bundled demo program
  clrscope ps [--json]                             list .NET processes to attach to
  clrscope convert IN -o OUT                       convert a recording between formats
  clrscope report FILE [options]                   functions, callers/callees, trees, diffs
  clrscope heap FILE | --pid PID [options]         a heap snapshot (a file, or taken of a
                                                   process): types, retained bytes,
                                                   fragmentation, paths from roots, growth
  clrscope help [COMMAND]                          show help

Run 'clrscope record --help' for the recording options.
`;

export const RECORD_HELP = `Usage: clrscope record [options] -- COMMAND [ARGS...]
       clrscope record [options] --pid PID

Launches COMMAND with clrscope's profiler loaded into its .NET runtime
(CORECLR_ENABLE_PROFILING / CORECLR_PROFILER / CORECLR_PROFILER_PATH) and
records CPU time and wall time of every managed thread until the program
exits, the duration ends, or Ctrl-C. The program's stdin, stdout and stderr
are its own, and clrscope exits with the program's exit code (128+N when a
signal N ended it).

With --pid, clrscope attaches to a .NET process that is already running
(through the runtime's diagnostics IPC), records until the duration ends,
Ctrl-C or the process exits, then detaches: the process keeps running as if
nothing happened, and can be attached again later. When the runtime refuses
clrscope's profiler (another profiler is already loaded) but its diagnostics
socket answers, clrscope says so and records through an EventPipe session
instead: the runtime's sample profiler for stacks (about one sample per
thread every few milliseconds; --interval and --no-wall do not apply), its
GC events for pauses, and System.Runtime's counters. CPU time is then
approximate: a sample counts as CPU when its thread was in managed code.

Options:
  -p, --pid PID         attach to this running process instead of launching
  -o, --output FILE     where to write the recording (default: clrscope.pb.gz);
                        the format follows the extension:
${formatHelpTable('write', 24)}
  --duration SECONDS    stop after this long; the program is then asked to exit
                        as Ctrl-C would ask it (SIGINT, then SIGTERM, SIGKILL)
  --interval MS         sampling period in milliseconds, 1 to 1000 (default 10):
                        one CPU sample per MS of CPU a thread uses, one wall
                        sample per MS of elapsed time per thread (at most 64
                        threads per tick, in rotation)
  --wall, --no-wall     take wall-time samples too (default) or CPU only
  --exceptions on|off   every thrown exception's type and throwing stack (default
                        on; stacks for at most 1000 a second, the rest counted
                        by type)
  --locks on|off        each wait for a contended lock, with its duration and
                        the waiting stack (default on; .NET 8+)
  --alloc on|off        sampled allocations with type and stack, upscaled to
                        bytes and objects (default off: it slows
                        allocation-bound programs; AllocationSampled on
                        .NET 10, AllocationTick on .NET 8/9)
  --async               async call stacks: a sample taken in an async method's
                        continuation gets the methods awaiting it above it
                        ("[await] Ns.Type.Method" frames) in the flame graph,
                        pprof and speedscope. Off by default: it costs about 8%
                        at 10,000 awaits a second and 37% at 100,000
  --async-source heap|events
                        where --async's chains come from (implies --async):
                        events (the default) follows the TPL events of every
                        await, with suspended time; heap reads each sample's
                        chain from the heap, about 0-3% at 100,000 awaits a
                        second (a probe on each resumption, no TPL events)
  --requests            HTTP requests an ASP.NET Core program serves (.NET 8+):
                        method, route, status, latency, trace and span ids;
                        samples get pprof labels endpoint, trace_id, span_id
                        (report --requests prints them per endpoint). With
                        --async-source heap (or --async) each request is
                        followed through its awaits onto other threads;
                        without, only its synchronous part on the thread
                        that began it is counted as its
  --requests-rate all|N with --requests: past N requests a second (default
                        about 83 per CPU the process may use) the profiler
                        listens for requests part of each second, as each
                        one it hears costs the server about 60 us of CPU,
                        and report --requests says its counts are a sample;
                        all hears every request, whatever it costs
  --no-fallback         with --pid: fail as before when the runtime refuses the
                        profiler, instead of recording through EventPipe
  --children            record every .NET process the program starts (they
                        inherit the profiler's variables), each as its own
                        process in one recording: thread names start with
                        "[PID NAME]", pprof samples carry the labels
                        "process id" and "process name". Without it only the
                        launched process is recorded, and record says which
                        other .NET processes are still running with the
                        profiler loaded (e.g. MSBuild nodes after a build).
                        A .NET tool's launcher (a command installed by dotnet
                        tool install, such as pwsh) is recorded as with
                        --children, since it may only start the real program
                        as a process of its own and wait for it
  --pauses FILE.json    also write every runtime suspension (GC pauses and
                        others) as a JSON array of {startNs, durationNs,
                        suspendNs, reason, generation, induced, aborted};
                        generation is null for suspensions without a GC
  -h, --help            show this help

When it ends, record prints to stderr the samples taken and dropped, the
ten methods with the most CPU time and wall time, and the GC pauses per
generation (count, p50/p90/p99/max, total), measured exactly from the
runtime's suspend and resume notifications, then the exceptions, lock waits
and allocations with their top types and methods. In pprof these are the
sample types exceptions, contentions, delay, alloc-samples, alloc-space and
alloc-objects (go tool pprof -sample_index=alloc-space). Self time is charged to the
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
exit code. With --pid, clrscope reads the block of a process already under
clrscope, or attaches to it (counters only) and detaches when it stops, leaving
the process as it was. Either way the last line printed holds the final values
(after an attach, counts start at the attach). When the runtime refuses the
profiler (another profiler is already loaded), clrscope says so and reads
System.Runtime's EventCounters through an EventPipe session instead, once per
whole second: they fill the GC counts, heap sizes, % time in GC, exceptions,
lock contentions, methods and IL bytes jitted, assemblies and OS threads, and
the extras but the handle count;
the other fields stay empty (no value in JSON, empty CSV cells, '–' in the
table), and JSON adds a systemRuntime object with every counter as sent.
Counts start at the session, as after an attach, and those of the last
second before the process exits may not arrive.

Options:
  -p, --pid PID          a running .NET process
  --refresh MS           how often to read, 10 to 3600000 ms (default 1000)
  --format FORMAT        table (default), json (one object per line per
                         refresh: timestamp, pid, then gc, contexts, interop,
                         loading, exceptions, locksAndThreads, jit, security
                         with camelCase fields, and extras: allocation rate,
                         committed bytes, working set, CPU %, the thread
                         pool's threads, queue and completed items, the GC
                         handle count) or csv (a header, then a row
                         per refresh)
  --no-fallback          with --pid: fail when the runtime refuses the
                         profiler, instead of reading EventCounters
  -h, --help             show this help
`;

export const PS_HELP = `Usage: clrscope ps [--json] [--timeout MS]

Lists the .NET processes of this user: pid, name (the entry assembly), the
runtime version, whether clrscope can attach to it, and its command line.
Processes are found by their runtime's diagnostics socket
($TMPDIR/dotnet-diagnostic-PID-KEY-socket) and by a .NET runtime in their
memory maps; each runtime is asked for its details through that socket.
A process in a container (other pid or mount namespaces) is found through
/proc/PID/root when clrscope runs as root on the host or in a sidecar that
may ptrace it; the CONTAINER column says which one and its pid there.
A process clrscope cannot attach to says why: diagnostics turned off
(DOTNET_EnableDiagnostics=0), another user's, or a runtime that does not
answer (hung or stopped). One that already has a profiler (another one, or
clrscope's own) is attachable through EventPipe only ('eventpipe'): its
runtime would refuse clrscope's profiler, so record --pid and counters --pid
use an EventPipe session instead, with approximate CPU time.

Options:
  --json          print a JSON array of {pid, name, commandLine,
                  runtimeVersion, attachable, eventPipeOnly, reason,
                  clrscopeLoaded, container} (runtimeVersion and reason may
                  be null; container is {pid, id, cgroup} for a process in
                  other pid or mount namespaces, its pid there, else null)
  --timeout MS    how long to wait for each runtime's answer, 10 to 60000
                  (default 1500); processes are asked in parallel
  -h, --help      show this help
`;

export const CONVERT_HELP = `Usage: clrscope convert INPUT -o OUTPUT [--metric cpu|wall|both]

Reads a recording, its format known by its first bytes (else its file name's
extension), and writes it in the format its output's extension names.

Reads:${formatHelpTable('read', 9).slice(6)}
Writes:${formatHelpTable('write', 9).slice(7)}

The output is checked before the input is read and written under a temporary
name, then renamed, so a failure never leaves half a file. Progress goes to
stderr. Formats other than .clrscope keep less than a recording holds: the
last line says what was left out.

Options:
  -o, --output FILE     the file to write (required)
  --metric METRIC       speedscope output: cpu, wall or both (default both)
  -h, --help            show this help

Example:
  clrscope record -o app.clrscope -- dotnet MyService.dll
  clrscope convert app.clrscope -o app.speedscope.json
`;

export const REPORT_HELP = `Usage: clrscope report FILE [options]

The workstation's analysis, headless, on any recording clrscope reads
(.clrscope, .nettrace, .pb.gz/.pb/.pprof, .speedscope.json). Without options
it prints the 20 functions with the most self time.

Options:
  --top N               the N functions with the most self value (0: all);
                        self counts samples whose leaf a function is, total
                        samples with it anywhere in the stack
  --callers NAME        NAME's callers merged into a tree rooted at NAME
  --callees NAME        what NAME calls, merged into a tree rooted at NAME.
                        NAME is a frame's full name, or a unique part of one
  --tree                the whole call tree, top-down
  --diff BASE           compare FILE (after) with BASE (before): per function
                        and, with --tree, as a differential tree. BASE may be
                        FILE itself with --base-window and --window
  --base-window S:E     BASE's part, as --window
  --normalize MODE      diff values as shares of each side's total (share,
                        the default: deltas in percentage points) or absolute
  --fold WORDS          folding and grouping, comma-separated and repeatable,
                        applied in order to the default (runtime):
                          runtime, no-runtime  runs of the runtime's and libc's
                                               native frames as one [runtime]
                          mycode, no-mycode    only the program's own code (not
                                               System.*, Microsoft.*): other
                                               frames fold into the call that
                                               entered them
                          assembly, namespace, no-group   group frames by it
                          fold:GLOB            matching frames fold into their
                                               caller (e.g. fold:System.Linq.*)
                          group:GLOB           a run of matching frames is one
                                               frame (group:Microsoft.AspNetCore.*)
                          none                 nothing folded at all
  --sample-type TYPE    cpu, wall or samples (default: cpu when the recording
                        has CPU times, else wall)
  --window S:E          only samples from S to E seconds after the recording's
                        start; either side may be left out (10: or :5)
  --min-percent P       trees leave out nodes below P% of the total (default
                        0.5); their time stays in their parents' totals
  --lines               per source line: each frame is its method at a line,
                        Name [File.cs:42], from the PDBs beside the recorded
                        assemblies or embedded in them
  --async               on async call stacks (recordings made with record
                        --async): an awaited method's time under the methods
                        awaiting it, as [await] frames
  --source NAME         NAME's self and total per source line (file:line),
                        as the workstation's Source view shows them
  --gcs                 one row per garbage collection instead: number,
                        generation, type, reason, pause, heap before and
                        after, promoted bytes (from the runtime's GC events:
                        clrscope recordings, dotnet-trace .nettrace files)
  --exceptions          the exceptions instead, by the method where each one
                        was first thrown (a rethrow, \`throw;\` or an await of
                        a faulted task, is not counted again), with the
                        paths they were rethrown along
  --requests            one row per HTTP endpoint instead (recordings made
                        with record --requests): count, p50/p90/p99/max
                        latency, CPU, errors (status >= 500), and, when the
                        profiler listened only part of the time (record
                        --requests-rate), how much: the counts are a sample
  --blocking            the call sites that block thread-pool threads
                        instead (Task.Wait, .Result, Monitor.Wait, Thread.Sleep,
                        synchronous I/O, ...), ranked by the pool-thread wall
                        time they hold, and whether and for how long the pool
                        was short of threads (its own events: recordings made
                        with record --requests)
  --format FORMAT       text (default, fits the terminal), json (stable; see
                        README) or csv (one table)
  -h, --help            show this help

Examples:
  clrscope report app.clrscope --top 30
  clrscope report app.clrscope --callers ComputeDiscount --fold mycode
  clrscope report app.clrscope --source HotLineWork.Mix
  clrscope report after.clrscope --diff before.clrscope --tree
  clrscope report app.clrscope --diff app.clrscope --base-window 0:10 --window 10:
`;

export const MEASURE_HELP = `Usage: clrscope measure --method PATTERN [--method ...] [options] -- COMMAND [ARGS...]
       clrscope measure --method PATTERN [--method ...] [options] --pid PID

Measures chosen methods exactly: every call, the exceptions that leave them,
and each call's duration. clrscope's profiler asks the runtime to compile the
methods again (ReJIT) with a timing probe around their bodies, and compiles
again every method that had them inlined, so no call is missed. At the end
the methods get their original code back and a table is printed: calls,
exceptions, p50/p90/p99/max latency and the total time spent in them.

With -- COMMAND the program is started with the profiler and its methods are
measured from their very first call (each module's methods are prepared as it
loads); its stdin, stdout and stderr are its own and clrscope exits with its
exit code. With --pid the profiler is loaded into a running process and the
methods are measured from then on. The runtime then keeps clrscope's profiler
loaded until the process exits (a profiler that used ReJIT may not detach): it
stays idle, the methods run their original code again, and a later attach to
that process records through EventPipe (see clrscope record --help).

PATTERN names methods as the flame graph shows them: Namespace.Type.Method
(every overload), Namespace.Type.* (every method of the type), nested types
with + (Ns.Outer+Inner.Method), constructors as Ns.Type..ctor. Generic
arguments are dropped: one measurement counts every instantiation. An async
method is measured up to its first await that does not complete at once (its
synchronous part), and marked so.

Options:
  -m, --method PATTERN   a method or methods to measure (repeat for more)
  -p, --pid PID          a running .NET process instead of a command
  --duration SECONDS     stop after this long: revert the methods, print the
                         table, and (with a command) ask the program to exit
                         as Ctrl-C would
  --json                 print a JSON array instead of the table: {name,
                         module, state, detail, calls, exceptions, totalNs,
                         meanNs, p50Ns, p90Ns, p99Ns, maxNs, threads}
  -h, --help             show this help

Without --duration, measuring ends when the program exits or on Ctrl-C.

Example:
  clrscope measure --method 'Shop.Orders.PlaceOrder' --duration 60 --pid 4242
`;

export const HEAP_HELP = `Usage: clrscope heap FILE [options]
       clrscope heap --pid PID [-o FILE.clrheap|FILE.gcdump] [options]
       clrscope heap [--after SECONDS] [options] -- PROGRAM [ARGS...]

A heap snapshot's objects by type: how many, their own bytes, and the bytes
they keep alive (retained: what the GC would free if they died, from the
dominator tree of the object graph), most retained first, then each
generation's size and fragmentation when the snapshot has them.

Snapshots are read from files (.clrheap, clrscope's own; .gcdump from
dotnet-gcdump collect or PerfView; a .clrscope recording saved by the
workstation with snapshots taken in its Heap tab: the last one) or taken of a running .NET process (--pid,
or a program it starts): the runtime's own heap walk over an EventPipe
session, as dotnet-gcdump takes it. Nothing is loaded into the process; it
pays one blocking full collection (two on .NET 8 and 9, for dotnet-gcdump too).

Options:
  -p, --pid PID         take a snapshot of this process
  --after SECONDS       with a program after --: take the snapshot this long
                        after starting it (default 3), then wait for its end
                        and exit as it did
  -o, --output FILE     save the snapshot, taken or read (.clrheap: every
                        object, reference and root, and the generations;
                        .gcdump: the same objects, references and roots for
                        PerfView, Visual Studio and dotnet-gcdump report)
  --timeout SECONDS     give up on a heap walk that has not ended by then
                        (default 120)
  --max-objects N       keep at most N objects of a heap walk (default: what
                        half this machine's memory holds, 100 bytes an
                        object); past it the first N and their references
                        are shown and saved, and clrscope exits with 1
  --top N               the N types with the most retained bytes (default 20;
                        0: all)
  --paths TYPE          the shortest paths from roots (static fields, thread
                        stacks, handles, the finalizer queue) to TYPE's objects,
                        one path a line with how many objects it holds.
                        TYPE is a full name or a unique part of one
  --diff BASE           what changed since the snapshot BASE, per type: count
                        and retained bytes, the most grown first; with --paths
                        TYPE, the paths to TYPE that grew (or shrank), by how
                        many objects
  --format text|json    text (default) or JSON: {"types":[{"type","count",
                        "bytes","retainedBytes"}...],"generations":[{
                        "generation","name","sizeBytes","freeListBytes",
                        "freeObjectBytes","fragmentationBytes"}...]}
                        (generations when the snapshot has them); with --paths
                        {"type","paths":[{"path":[...],"count"}...]}; with
                        --diff each type's count, bytes, retainedBytes and
                        their deltas (countDelta, bytesDelta, retainedDelta);
                        with both, {"type","paths":[{"path","count",
                        "countDelta"}...]}
`;
