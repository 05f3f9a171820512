using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.CpuBench;

/// <summary>
/// CpuBench [--threads T] [--work N] [--warmup W] [--rounds R]
/// Runs units 0..N-1 of Work.Unit split into T contiguous ranges on threads "bench-0".."bench-{T-1}",
/// R times. Only the work is timed: threads are created and parked at a barrier before the clock starts.
/// Prints RESULT {"elapsedMs": ..., "checksum": "&lt;16 hex digits&gt;", "roundsMs": [...], ...}.
/// </summary>
public static class Bench
{
    public const int DefaultWork = 50_000;

    public static int Main(string[] args)
    {
        int threads = 1, rounds = 1;
        long work = DefaultWork, warmup = 0;
        for (int i = 0; i < args.Length; i++)
        {
            bool ok = i + 1 < args.Length;
            switch (args[i])
            {
                case "--threads" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int t) && t is >= 1 and <= 256:
                    threads = t; i++; break;
                case "--rounds" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int r) && r is >= 1 and <= 1000:
                    rounds = r; i++; break;
                case "--work" when ok && long.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out long n) && n >= 0:
                    work = n; i++; break;
                case "--warmup" when ok && long.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out long w) && w >= 0:
                    warmup = w; i++; break;
                default:
                    Console.Error.WriteLine($"CpuBench: bad argument '{args[i]}'");
                    Console.Error.WriteLine("usage: CpuBench [--threads T] [--work N] [--warmup W] [--rounds R]");
                    return 2;
            }
        }

        // Untimed warm-up on the main thread (lets the tiered JIT settle). Uses unit numbers past N.
        if (warmup > 0) Work.RunRange(work, work + warmup, new Dictionary<int, int>());

        using var barrier = new Barrier(threads + 1);
        var workers = new WorkerState[threads];
        var started = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            workers[t] = new WorkerState(work * t / threads, work * (t + 1) / threads, rounds, barrier);
            started[t] = new Thread(Worker) { Name = $"bench-{t}", IsBackground = false };
            started[t].Start(workers[t]);
        }

        var roundsMs = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            barrier.SignalAndWait(); // all workers parked: go
            long t0 = Stopwatch.GetTimestamp();
            barrier.SignalAndWait(); // all workers finished their range
            roundsMs[r] = Stopwatch.GetElapsedTime(t0).TotalMilliseconds;
        }
        foreach (Thread th in started) th.Join();

        ulong checksum = 0;
        foreach (WorkerState w in workers) checksum += w.Sum;
        bool consistent = workers.All(w => w.Consistent);
        double elapsedMs = roundsMs.Sum();
        double[] sorted = roundsMs.Order().ToArray();

        var result = new JsonObject
        {
            ["program"] = "CpuBench",
            ["elapsedMs"] = Math.Round(elapsedMs, 2),
            ["checksum"] = checksum.ToString("x16", CultureInfo.InvariantCulture),
            ["threads"] = threads,
            ["work"] = work,
            ["warmup"] = warmup,
            ["rounds"] = rounds,
            ["roundsMs"] = new JsonArray(roundsMs.Select(ms => (JsonNode?)JsonValue.Create(Math.Round(ms, 2))).ToArray()),
            ["minRoundMs"] = Math.Round(sorted[0], 2),
            ["medianRoundMs"] = Math.Round(sorted[sorted.Length / 2], 2),
            ["unitsPerSecond"] = elapsedMs > 0 ? Math.Round(work * (double)rounds / (elapsedMs / 1000.0)) : 0,
            // Every thread of the process, a profiler's own included.
            ["processCpuMs"] = Math.Round(Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds, 1),
        };
        Console.WriteLine($"RESULT {result.ToJsonString()}");
        if (!consistent)
        {
            Console.Error.WriteLine("CpuBench: checksum differed between rounds");
            return 3;
        }
        return 0;
    }

    /// <summary>Body of thread "bench-N": for each round, waits at the barrier, runs its range, waits again.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Worker(object? state)
    {
        var w = (WorkerState)state!;
        var scratch = new Dictionary<int, int>(capacity: 128);
        for (int r = 0; r < w.Rounds; r++)
        {
            w.Barrier.SignalAndWait();
            ulong sum = Work.RunRange(w.First, w.End, scratch);
            if (r > 0 && sum != w.Sum) w.Consistent = false;
            w.Sum = sum;
            w.Barrier.SignalAndWait();
        }
    }
}

public sealed class WorkerState(long first, long end, int rounds, Barrier barrier)
{
    public long First { get; } = first;
    public long End { get; } = end;
    public int Rounds { get; } = rounds;
    public Barrier Barrier { get; } = barrier;
    public ulong Sum;
    public bool Consistent = true;
}
