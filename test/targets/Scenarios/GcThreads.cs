using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// gc-churn: two threads "churn-0" and "churn-1" allocate short-lived arrays and keep a
/// rolling window of survivors for --seconds, so the garbage collector's own threads (run
/// with DOTNET_gcServer=1 to have server GC threads, which the runtime never reports to a
/// profiler) spend real CPU. The facts report the process's CPU time and the monotonic clock
/// (Stopwatch ticks are CLOCK_MONOTONIC nanoseconds on Linux) at the start and the end of the
/// work, so a test can compare the CPU a recording accounts for over that span; and the CPU
/// of threads named clrscope* (a profiler's own, which it leaves out of its profile) from
/// /proc/self/task, so the test can take it out of the process's.
/// </summary>
public static class ChurnWork
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Churn(object? state)
    {
        var s = (ChurnState)state!;
        var keep = new byte[4096][];
        var rng = new Random(7);
        long start = Stopwatch.GetTimestamp();
        long n = 0;
        while (Stopwatch.GetElapsedTime(start) < s.Duration)
        {
            var a = new byte[rng.Next(64, 8192)];
            a[0] = (byte)n;
            keep[n++ & 4095] = a;
        }
        Interlocked.Add(ref s.Allocations, n);
        ThreadFacts.Record();
    }
}

public sealed class ChurnState(TimeSpan duration)
{
    public TimeSpan Duration { get; } = duration;
    public long Allocations;
}

internal sealed class GcChurnScenario(Options o) : Scenario(o)
{
    private ChurnState _state = null!;
    private long _startMono;
    private double _startCpuMs;
    private double _startProfilerCpuMs;

    /// <summary>CPU (user + system, ms) of this process's threads whose name starts with "clrscope".</summary>
    private static double ProfilerThreadsCpuMs()
    {
        double ticks = 0;
        foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
        {
            try
            {
                if (!File.ReadAllText(Path.Combine(task, "comm")).StartsWith("clrscope", StringComparison.Ordinal)) continue;
                string stat = File.ReadAllText(Path.Combine(task, "stat"));
                // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
                string[] rest = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
                ticks += double.Parse(rest[11]) + double.Parse(rest[12]);
            }
            catch (IOException)
            {
                // The thread ended between the listing and the read.
            }
        }
        return ticks * 10.0;  // USER_HZ is 100 on Linux
    }

    public override string Name => "gc-churn";

    protected override void OnStart()
    {
        _state = new ChurnState(Options.Duration);
        _startCpuMs = Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds;
        _startProfilerCpuMs = ProfilerThreadsCpuMs();
        _startMono = Stopwatch.GetTimestamp();
        StartThread("churn-0", ChurnWork.Churn, _state);
        StartThread("churn-1", ChurnWork.Churn, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["allocations"] = _state.Allocations,
        ["serverGc"] = System.Runtime.GCSettings.IsServerGC,
        ["startMonoNs"] = _startMono * (1_000_000_000 / Stopwatch.Frequency),
        ["endMonoNs"] = Stopwatch.GetTimestamp() * (1_000_000_000 / Stopwatch.Frequency),
        ["startProcessCpuMs"] = Math.Round(_startCpuMs, 1),
        ["endProcessCpuMs"] = Math.Round(Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds, 1),
        ["collections"] = GC.CollectionCount(0),
        ["startProfilerThreadsCpuMs"] = _startProfilerCpuMs,
        ["endProfilerThreadsCpuMs"] = ProfilerThreadsCpuMs(),
    };
}
