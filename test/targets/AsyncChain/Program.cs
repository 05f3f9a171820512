using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.AsyncChain;

/// <summary>
/// AsyncChain chain [--seconds S] [--parallel P]
///   P logical operations, each looping Outer → Middle → Inner for S seconds; every level awaits
///   Task.Yield (its continuation hops to a thread-pool thread) and Inner then burns CPU, so the
///   CPU samples land in Inner's MoveNext with Middle and Outer only in the logical (async) stack.
/// AsyncChain valuetask|pooled|configure-await|fanout [--seconds S] [--parallel P]
///   The same shape as chain with another kind of await: `valuetask` Outer → Middle → Inner where
///   Middle and Inner are `async ValueTask<long>` methods; `pooled` the same built with
///   PoolingAsyncValueTaskMethodBuilder (their boxes are pooled IValueTaskSources, not tasks);
///   `configure-await` Outer → Middle → Inner awaiting each callee, a Task.Delay(1) and a Task.Run
///   with ConfigureAwait(false); `fanout` Request awaiting Task.WhenAll(Left(), Right()), each
///   branch awaiting Leaf (Yield, then CPU), so Leaf's CPU has two callers, each with Request above it.
/// AsyncChain awaits [--seconds S] [--work-us W]
///   A tight-await loop on one logical operation: each step awaits an async method that yields and
///   then does W µs of CPU work (a fixed count of multiply-adds, calibrated at start); each step is
///   two continuations (the Yield's, then the loop's), so about 2e6 / (W + the await's cost) per s.
/// AsyncChain requests [--count N] [--parallel P] [--delay-ms D] [--work-us W]
///   N requests served by P clients, each request Handler → Service, where Service awaits
///   Task.Delay(D) between two bits of CPU work (W µs each, in Handler and in Service); the
///   requests' suspended time is in no thread's stack. Reports the requests' own truth: the count,
///   the time each spent awaiting the delay (summed) and the time each took.
/// AsyncChain service [--seconds S] [--parallel P]
///   A service's shape: P operations, each looping Gateway → Basket → Tax for S seconds, every
///   level across Task.Yield and Tax burning 0.2 ms of CPU; the loop's task lives the whole run,
///   so a long run's leaf CPU must stay chained to it however many task ids pass. Each operation
///   counts itself in flight from its start to its end; an `inflight N` line on stderr says how
///   many are in flight once every one has started, and RESULT gives the most seen at once.
/// AsyncChain churn [--seconds S] [--parallel P]
///   Async stacks under garbage collection: P operations loop Gateway → Basket → Tax across
///   Task.Yield, each level allocating and keeping a little garbage, so a small gen0 budget
///   (DOTNET_GCgen0size) collects and compacts all the time while boxes are awaited and resumed.
///   Every call's value is a function of its arguments, checked by its caller: RESULT counts the
///   calls, the wrong values seen (0 when nothing disturbed the program) and the GCs.
/// Prints RESULT {...} with the mode's counts on stdout and exits 0.
/// </summary>
public static class Program
{
    static readonly string[] Modes = ["chain", "valuetask", "pooled", "configure-await", "fanout", "awaits", "requests", "service", "churn"];

    public static async Task<int> Main(string[] args)
    {
        if (args.Length == 0 || !Modes.Contains(args[0]))
        {
            Console.Error.WriteLine("usage: AsyncChain chain|valuetask|pooled|configure-await|fanout|awaits|requests|service|churn [--seconds S] [--parallel P] [--work-us W] [--count N] [--delay-ms D]");
            return 2;
        }
        double seconds = 2;
        int parallel = 2;
        double workUs = 10;
        int count = 20;
        int delayMs = 200;
        for (int i = 1; i < args.Length; i++)
        {
            bool ok = i + 1 < args.Length;
            switch (args[i])
            {
                case "--seconds" when ok && double.TryParse(args[i + 1], NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s > 0 && s <= 3600:
                    seconds = s; i++; break;
                case "--parallel" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int p) && p is >= 1 and <= 1024:
                    parallel = p; i++; break;
                case "--work-us" when ok && double.TryParse(args[i + 1], NumberStyles.Float, CultureInfo.InvariantCulture, out double w) && w >= 0 && w <= 1e6:
                    workUs = w; i++; break;
                case "--count" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) && n is >= 1 and <= 1_000_000:
                    count = n; i++; break;
                case "--delay-ms" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int d) && d is >= 0 and <= 60_000:
                    delayMs = d; i++; break;
                default:
                    Console.Error.WriteLine($"AsyncChain: bad argument '{args[i]}'");
                    return 2;
            }
        }
        var result = args[0] switch
        {
            "chain" => await Chain.Run(seconds, parallel),
            "valuetask" => await Loops.Run("valuetask", seconds, parallel, ValueChain.Outer),
            "pooled" => await Loops.Run("pooled", seconds, parallel, PooledChain.Outer),
            "configure-await" => await Loops.Run("configure-await", seconds, parallel, ConfiguredChain.Outer),
            "fanout" => await Loops.Run("fanout", seconds, parallel, FanOut.Request),
            "awaits" => await Awaits.Run(seconds, workUs),
            "service" => await Service.Run(seconds, parallel),
            "churn" => await Churn.Run(seconds, parallel),
            _ => await Requests.Run(count, parallel, delayMs, workUs),
        };
        Console.WriteLine("RESULT " + result.ToJsonString());
        return 0;
    }
}

public static class Chain
{
    static long s_inner;
    static long s_checksum;

    public static async Task<JsonObject> Run(double seconds, int parallel)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long t0 = Stopwatch.GetTimestamp();
        var ops = new Task[parallel];
        for (int i = 0; i < parallel; i++) ops[i] = Task.Run(() => Loop(deadline));
        await Task.WhenAll(ops);
        return new JsonObject
        {
            ["mode"] = "chain",
            ["parallel"] = parallel,
            ["innerCalls"] = Interlocked.Read(ref s_inner),
            ["elapsedMs"] = Stopwatch.GetElapsedTime(t0).TotalMilliseconds,
            ["checksum"] = Interlocked.Read(ref s_checksum).ToString("x16", CultureInfo.InvariantCulture),
        };
    }

    static async Task Loop(long deadline)
    {
        while (Stopwatch.GetTimestamp() < deadline) await Outer();
    }

    static async Task<long> Outer()
    {
        await Task.Yield();
        long v = await Middle();
        return v + 1;
    }

    static async Task<long> Middle()
    {
        await Task.Yield();
        long v = await Inner();
        return v + 1;
    }

    static async Task<long> Inner()
    {
        await Task.Yield();
        await Task.Yield();
        Interlocked.Increment(ref s_inner);
        long v = Burn.Spin(2.0);
        Interlocked.Add(ref s_checksum, v);
        return v;
    }
}

// The other await shapes' common loop: P logical operations started with Task.Run, each awaiting
// its mode's root method until the deadline; Leaf's calls and a checksum are the program's truth.
public static class Loops
{
    public static long s_leafCalls;
    public static long s_checksum;

    public static async Task<JsonObject> Run(string mode, double seconds, int parallel, Func<Task<long>> root)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long t0 = Stopwatch.GetTimestamp();
        var ops = new Task[parallel];
        for (int i = 0; i < parallel; i++) ops[i] = Task.Run(() => Loop(deadline, root));
        await Task.WhenAll(ops);
        return new JsonObject
        {
            ["mode"] = mode,
            ["parallel"] = parallel,
            ["leafCalls"] = Interlocked.Read(ref s_leafCalls),
            ["elapsedMs"] = Stopwatch.GetElapsedTime(t0).TotalMilliseconds,
            ["checksum"] = Interlocked.Read(ref s_checksum).ToString("x16", CultureInfo.InvariantCulture),
        };
    }

    static async Task Loop(long deadline, Func<Task<long>> root)
    {
        while (Stopwatch.GetTimestamp() < deadline) Interlocked.Add(ref s_checksum, await root());
    }

    // The innermost method's CPU: 2 ms of spinning after its awaits.
    public static long Work()
    {
        Interlocked.Increment(ref s_leafCalls);
        return Burn.Spin(2.0);
    }
}

// ValueTask-returning async methods: the builder boxes the state machine as a Task when the method
// suspends, and awaiting that ValueTask awaits the box.
public static class ValueChain
{
    public static async Task<long> Outer()
    {
        await Task.Yield();
        long v = await Middle();
        return v + 1;
    }

    static async ValueTask<long> Middle()
    {
        await Task.Yield();
        long v = await Inner();
        return v + 1;
    }

    static async ValueTask<long> Inner()
    {
        await Task.Yield();
        await Task.Yield();
        return Loops.Work();
    }
}

// ValueTask methods whose state machines are pooled: no Task is made for them, so the runtime's
// task events never name them.
public static class PooledChain
{
    public static async Task<long> Outer()
    {
        await Task.Yield();
        long v = await Middle();
        return v + 1;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    static async ValueTask<long> Middle()
    {
        await Task.Yield();
        long v = await Inner();
        return v + 1;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    static async ValueTask<long> Inner()
    {
        await Task.Yield();
        await Task.Yield();
        return Loops.Work();
    }
}

// Every await ConfigureAwait(false): continuations run on the pool, the awaited task as before.
public static class ConfiguredChain
{
    public static async Task<long> Outer()
    {
        await Task.Delay(1).ConfigureAwait(false);
        long v = await Middle().ConfigureAwait(false);
        return v + 1;
    }

    static async Task<long> Middle()
    {
        await Task.Yield();
        long v = await Inner().ConfigureAwait(false);
        return v + 1;
    }

    static async Task<long> Inner()
    {
        // A hop through the pool without a timer's wait: the continuation runs where the task ran.
        await Task.Run(static () => { }).ConfigureAwait(false);
        await Task.Yield();
        return Loops.Work();
    }
}

// A fan-out: Request starts two branches and awaits both through Task.WhenAll; each branch awaits
// the same Leaf, so Leaf's CPU splits under Left and Right, each under Request.
public static class FanOut
{
    public static async Task<long> Request()
    {
        await Task.Yield();
        long[] parts = await Task.WhenAll(Left(), Right());
        return parts[0] + parts[1];
    }

    static async Task<long> Left()
    {
        await Task.Yield();
        return await Leaf() + 1;
    }

    static async Task<long> Right()
    {
        await Task.Yield();
        return await Leaf() + 2;
    }

    static async Task<long> Leaf()
    {
        await Task.Yield();
        return Loops.Work();
    }
}

public static class Service
{
    static long s_taxCalls;
    static long s_checksum;
    static int s_inFlight;
    static int s_started;
    static int s_maxInFlight;

    public static async Task<JsonObject> Run(double seconds, int parallel)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long t0 = Stopwatch.GetTimestamp();
        var ops = new Task[parallel];
        for (int i = 0; i < parallel; i++) ops[i] = Task.Run(() => Loop(deadline, parallel));
        await Task.WhenAll(ops);
        return new JsonObject
        {
            ["mode"] = "service",
            ["parallel"] = parallel,
            ["maxInFlight"] = Volatile.Read(ref s_maxInFlight),
            ["taxCalls"] = Interlocked.Read(ref s_taxCalls),
            ["elapsedMs"] = Stopwatch.GetElapsedTime(t0).TotalMilliseconds,
            ["checksum"] = Interlocked.Read(ref s_checksum).ToString("x16", CultureInfo.InvariantCulture),
        };
    }

    // One operation: in flight from its first line to its last (its loop's task lives the whole run).
    static async Task Loop(long deadline, int parallel)
    {
        int now = Interlocked.Increment(ref s_inFlight);
        int max;
        while (now > (max = Volatile.Read(ref s_maxInFlight)) && Interlocked.CompareExchange(ref s_maxInFlight, now, max) != max) { }
        if (Interlocked.Increment(ref s_started) == parallel) Console.Error.WriteLine($"inflight {now}");
        try
        {
            while (Stopwatch.GetTimestamp() < deadline) Interlocked.Add(ref s_checksum, await Gateway());
        }
        finally
        {
            Interlocked.Decrement(ref s_inFlight);
        }
    }

    static async Task<long> Gateway()
    {
        await Task.Yield();
        long v = await Basket();
        return v + 1;
    }

    static async Task<long> Basket()
    {
        await Task.Yield();
        long v = await Tax();
        return v + 1;
    }

    static async Task<long> Tax()
    {
        await Task.Yield();
        Interlocked.Increment(ref s_taxCalls);
        return Burn.Spin(0.2);
    }
}

public static class Churn
{
    static long s_calls;
    static long s_wrong;

    public static async Task<JsonObject> Run(double seconds, int parallel)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        var ops = new Task[parallel];
        for (int i = 0; i < parallel; i++)
        {
            int seed = i * 1000;
            ops[i] = Task.Run(() => Loop(deadline, seed));
        }
        await Task.WhenAll(ops);
        return new JsonObject
        {
            ["mode"] = "churn",
            ["calls"] = Interlocked.Read(ref s_calls),
            ["wrong"] = Interlocked.Read(ref s_wrong),
            ["gen0"] = GC.CollectionCount(0) - gen0,
            ["gen1"] = GC.CollectionCount(1) - gen1,
            ["gen2"] = GC.CollectionCount(2) - gen2,
        };
    }

    static async Task Loop(long deadline, int seed)
    {
        for (long n = seed; Stopwatch.GetTimestamp() < deadline; n++)
        {
            long v = await Gateway(n);
            if (v != Expected(n)) Interlocked.Increment(ref s_wrong);
        }
    }

    static long Expected(long n) => (n * 7 + 3) * 2 + 5 + 11;

    static async Task<long> Gateway(long n)
    {
        var keep = new List<string> { n.ToString(CultureInfo.InvariantCulture) };
        await Task.Yield();
        long v = await Basket(n);
        return keep[0] == n.ToString(CultureInfo.InvariantCulture) ? v + 11 : -1;
    }

    static async Task<long> Basket(long n)
    {
        byte[] garbage = new byte[64 + (int)(n & 255)];
        garbage[^1] = (byte)n;
        await Task.Yield();
        long v = await Tax(n);
        return garbage[^1] == (byte)n ? v * 2 + 5 : -1;
    }

    static async Task<long> Tax(long n)
    {
        var parts = new long[8];
        for (int i = 0; i < parts.Length; i++) parts[i] = n;
        await Task.Yield();
        Interlocked.Increment(ref s_calls);
        long sum = 0;
        foreach (long p in parts) sum += p;
        return sum / parts.Length * 7 + 3;
    }
}

public static class Awaits
{
    public static async Task<JsonObject> Run(double seconds, double workUs)
    {
        double roundsPerUs = Burn.RoundsPerUs();
        long rounds = (long)(workUs * roundsPerUs);
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        var cpu0 = Process.GetCurrentProcess().TotalProcessorTime;
        long t0 = Stopwatch.GetTimestamp();
        long steps = 0, checksum = 0;
        // Checked every 64 steps: the clock read stays out of the per-await cost.
        while (true)
        {
            for (int i = 0; i < 64; i++) checksum += await Step(rounds);
            steps += 64;
            if (Stopwatch.GetTimestamp() >= deadline) break;
        }
        double ms = Stopwatch.GetElapsedTime(t0).TotalMilliseconds;
        // The whole process's CPU over the loop: the program's threads and the profiler's.
        var cpuEnd = Process.GetCurrentProcess().TotalProcessorTime;
        double cpuMs = (cpuEnd - cpu0).TotalMilliseconds;
        return new JsonObject
        {
            ["mode"] = "awaits",
            ["cpuMs"] = cpuMs,
            ["cpuUsPerStep"] = cpuMs * 1000 / steps,
            // Since the process started, startup included: what a collector outside it is compared with.
            ["processCpuMs"] = cpuEnd.TotalMilliseconds,
            ["steps"] = steps,
            ["elapsedMs"] = ms,
            ["stepsPerSecond"] = steps / (ms / 1000),
            ["roundsPerStep"] = rounds,
            ["roundsPerUs"] = roundsPerUs,
            ["checksum"] = checksum.ToString("x16", CultureInfo.InvariantCulture),
        };
    }

    static async Task<long> Step(long rounds)
    {
        await Task.Yield();
        return Burn.Mix(rounds, rounds);
    }
}

public static class Requests
{
    static int s_next;
    static long s_served;
    static long s_awaitedTicks;
    static long s_requestTicks;
    static long s_checksum;

    public static async Task<JsonObject> Run(int count, int parallel, int delayMs, double workUs)
    {
        long rounds = (long)(workUs * Burn.RoundsPerUs());
        long t0 = Stopwatch.GetTimestamp();
        var clients = new Task[parallel];
        for (int i = 0; i < parallel; i++) clients[i] = Task.Run(() => Client(count, delayMs, rounds));
        await Task.WhenAll(clients);
        double ticksPerMs = Stopwatch.Frequency / 1000.0;
        return new JsonObject
        {
            ["mode"] = "requests",
            ["requests"] = Interlocked.Read(ref s_served),
            ["parallel"] = parallel,
            ["delayMs"] = delayMs,
            ["awaitedMs"] = Interlocked.Read(ref s_awaitedTicks) / ticksPerMs,
            ["requestMs"] = Interlocked.Read(ref s_requestTicks) / ticksPerMs,
            ["elapsedMs"] = Stopwatch.GetElapsedTime(t0).TotalMilliseconds,
            ["checksum"] = Interlocked.Read(ref s_checksum).ToString("x16", CultureInfo.InvariantCulture),
        };
    }

    static async Task Client(int count, int delayMs, long rounds)
    {
        while (Interlocked.Increment(ref s_next) <= count)
        {
            long t0 = Stopwatch.GetTimestamp();
            Interlocked.Add(ref s_checksum, await Handler(delayMs, rounds));
            Interlocked.Add(ref s_requestTicks, Stopwatch.GetTimestamp() - t0);
            Interlocked.Increment(ref s_served);
        }
    }

    // The endpoint: a little work, then the service call it waits for.
    static async Task<long> Handler(int delayMs, long rounds)
    {
        long v = Burn.Mix(rounds, rounds);
        return v + await Service(delayMs, rounds);
    }

    static async Task<long> Service(int delayMs, long rounds)
    {
        long v = Burn.Mix(rounds + 1, rounds);
        long t0 = Stopwatch.GetTimestamp();
        await Task.Delay(delayMs);
        Interlocked.Add(ref s_awaitedTicks, Stopwatch.GetTimestamp() - t0);
        return Burn.Mix(v, rounds);
    }
}

public static class Burn
{
    // Spins for about `ms` of wall time, doing real arithmetic the JIT cannot drop.
    public static long Spin(double ms)
    {
        long end = Stopwatch.GetTimestamp() + (long)(ms * Stopwatch.Frequency / 1000);
        long x = unchecked((long)0x9E3779B97F4A7C15);
        do
        {
            x = Mix(x, 64);
        } while (Stopwatch.GetTimestamp() < end);
        return x;
    }

    // A fixed amount of CPU work (`rounds` multiply-adds), the same in every run whatever the
    // machine's load: the tight-await benchmark's per-step work.
    public static long Mix(long x, long rounds)
    {
        for (long i = 0; i < rounds; i++) x = x * 6364136223846793005 + 1442695040888963407;
        return x;
    }

    // Rounds of Mix per microsecond on this machine, from the fastest of a few short timings.
    public static double RoundsPerUs()
    {
        double best = 0;
        for (int i = 0; i < 5; i++)
        {
            long t0 = Stopwatch.GetTimestamp();
            Mix(i, 200_000);
            double us = Stopwatch.GetElapsedTime(t0).TotalMicroseconds;
            if (us > 0) best = Math.Max(best, 200_000 / us);
        }
        return best;
    }
}
