using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// Measures how many iterations of the xorshift kernel (the loop used by CpuWork.Heavy/Light,
/// Recursion.Bottom, AsyncWork.Compute and ShortThreads.Body) run per millisecond on this machine,
/// so CPU work can be sized in fixed iteration counts that take a known time.
/// </summary>
public static class Calibration
{
    private const long Chunk = 1 << 16;
    private static ulong s_sink;

    /// <summary>Kernel iterations per millisecond on one core (best observed chunk).</summary>
    public static double IterationsPerMs { get; private set; } = 1;

    /// <summary>Wall time spent calibrating.</summary>
    public static double CalibrationMs { get; private set; }

    public static void Run(TimeSpan budget)
    {
        long start = Stopwatch.GetTimestamp();
        long best = long.MaxValue;
        do
        {
            long t0 = Stopwatch.GetTimestamp();
            Spin(Chunk);
            long dt = Stopwatch.GetTimestamp() - t0;
            if (dt > 0 && dt < best) best = dt;
        }
        while (Stopwatch.GetElapsedTime(start) < budget);

        double bestMs = best * 1000.0 / Stopwatch.Frequency;
        IterationsPerMs = Chunk / Math.Max(bestMs, 1e-6);
        CalibrationMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }

    /// <summary>Number of kernel iterations that take about <paramref name="milliseconds"/> of CPU.</summary>
    public static long IterationsFor(double milliseconds) =>
        Math.Max(1, (long)Math.Round(IterationsPerMs * milliseconds));

    // Same loop as CpuWork.Heavy/Light, compiled fully optimized straight away so the rate is stable.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Spin(long n)
    {
        ulong x = 0x9E3779B97F4A7C15UL;
        for (long i = 0; i < n; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        Volatile.Write(ref s_sink, x);
        return x;
    }
}
