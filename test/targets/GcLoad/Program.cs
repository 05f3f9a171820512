using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.GcLoad;

/// <summary>
/// GcLoad: a workload whose GC, exception, thread, lock-contention, assembly and JIT activity is known, so a
/// profiler's counters and GC pause measurements can be checked against the runtime's own numbers.
/// stdout: READY {json} (before the workload), TICK {json} per round in loop mode (--duration), SETTLED {json}
/// when the workload is over and every count is final (before --wait-at-end), then RESULT {json}.
/// Exit code: --exit-code (default 0); 2 for a usage error.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        Options o;
        try
        {
            o = Options.Parse(args);
        }
        catch (UsageException e)
        {
            Console.Error.WriteLine($"GcLoad: {e.Message}");
            Console.Error.WriteLine(Options.Usage);
            return 2;
        }
        if (o.Help)
        {
            Console.WriteLine(Options.Usage);
            return 0;
        }

        ExceptionWork.Install();
        // Run the static constructors now, so their allocations do not land in a measured phase.
        RuntimeHelpers.RunClassConstructor(typeof(GcWork).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(ThreadWork).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(LockWork).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(AssemblyWork).TypeHandle);
        long start = Stopwatch.GetTimestamp();
        Counters atStart = Counters.Read();

        // Build (and drop) a SETTLED and a RESULT document once now, so the JIT work and assembly loads of the
        // reporting code happen before the workload rather than while the program should be idle at the end.
        _ = Counters.Read().ToJson(atStart).ToJsonString();
        _ = Report.Result(o, 0, atStart, atStart, atStart, 0, 0).ToJsonString();

        var ready = new JsonObject
        {
            ["pid"] = Environment.ProcessId,
            ["program"] = "GcLoad",
            ["waitStartMs"] = o.WaitStartMs,
            ["loop"] = o.DurationSeconds is not null,
        };
        Console.WriteLine($"READY {ready.ToJsonString()}");
        Console.Out.Flush();
        if (o.WaitStartMs > 0) Thread.Sleep(o.WaitStartMs);

        long workStart = Stopwatch.GetTimestamp();
        ThreadWork.StartLive(o.LiveThreads);

        int rounds = 0;
        if (o.DurationSeconds is double seconds)
        {
            // Loop mode: round r starts at r * repeatEvery (or at once if the previous round ran late).
            var duration = TimeSpan.FromSeconds(seconds);
            var every = TimeSpan.FromMilliseconds(o.RepeatEveryMs);
            while (true)
            {
                TimeSpan roundStart = Stopwatch.GetElapsedTime(workStart);
                RunRound(o, rounds);
                rounds++;
                TimeSpan now = Stopwatch.GetElapsedTime(workStart);
                Console.WriteLine($"TICK {Report.Tick(rounds, now, now - roundStart, atStart).ToJsonString()}");
                Console.Out.Flush();
                TimeSpan next = every * rounds;
                // --repeat-every 0: back to back until the duration is over.
                if (every == TimeSpan.Zero ? now >= duration : next >= duration) break;
                if (next > now) Thread.Sleep(next - now);
            }
        }
        else
        {
            RunRound(o, 0);
            rounds = 1;
        }
        double workMs = Stopwatch.GetElapsedTime(workStart).TotalMilliseconds;

        Counters settled = Counters.Read();
        var settledLine = new JsonObject
        {
            ["pid"] = Environment.ProcessId,
            ["waitAtEndMs"] = o.WaitAtEndMs,
            ["counts"] = settled.ToJson(atStart),
        };
        Console.WriteLine($"SETTLED {settledLine.ToJsonString()}");
        Console.Out.Flush();
        if (o.WaitAtEndMs > 0) Thread.Sleep(o.WaitAtEndMs);

        Counters final = Counters.Read();
        JsonObject result = Report.Result(o, rounds, atStart, settled, final, workMs, Stopwatch.GetElapsedTime(start).TotalMilliseconds);
        Console.WriteLine($"RESULT {result.ToJsonString()}");
        Console.Out.Flush();
        ThreadWork.StopLive();
        return o.ExitCode;
    }

    /// <summary>
    /// One round, in this order: allocation, exceptions, short threads, lock contention, assembly loads (first
    /// round only), then the induced gen0, gen1 and gen2 collections and the induced background ones last, so the last GC
    /// of the round is induced.
    /// </summary>
    private static void RunRound(Options o, int round)
    {
        if (o.AllocateMb > 0) Phases.Run("allocate", () => GcWork.Allocate(o.AllocateMb));
        if (o.ChurnMb > 0) Phases.Run("churn", () => GcWork.Churn(o.ChurnMb));
        if (o.Exceptions > 0) Phases.Run("exceptions", () => ExceptionWork.Catcher(o.Exceptions));
        if (o.Threads > 0) Phases.Run("threads", () => ThreadWork.RunShort(o.Threads));
        if (o.LockContention > 0) Phases.Run("lockContention", () => LockWork.Run(o.LockContention));
        if (o.LoadAssemblies && round == 0) Phases.Run("loadAssemblies", AssemblyWork.Load);
        if (o.Gen0 > 0) Phases.Run("gen0", () => GcWork.Induce(0, o.Gen0));
        if (o.Gen1 > 0) Phases.Run("gen1", () => GcWork.Induce(1, o.Gen1));
        if (o.Gen2 > 0) Phases.Run("gen2", () => GcWork.Induce(2, o.Gen2));
        if (o.Background > 0) Phases.Run("background", () => GcWork.InduceBackground(o.Background));
    }
}
