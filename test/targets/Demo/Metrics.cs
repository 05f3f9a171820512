using System.Runtime.CompilerServices;

namespace Clrscope.Targets.Demo;

/// <summary>Batch latencies, summarised once a second by a System.Threading.Timer (runs on the thread pool).</summary>
public static class Metrics
{
    public static long TimerTicks;
    public static double LastP95Ms;

    private static readonly Lock s_lock = new();
    private static readonly double[] s_recent = new double[256];
    private static int s_count;

    public static void RecordBatch(double ms)
    {
        lock (s_lock) s_recent[s_count++ % s_recent.Length] = ms;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void OnTimer(object? state)
    {
        double[] copy;
        lock (s_lock) copy = s_recent.Take(Math.Min(s_count, s_recent.Length)).ToArray();
        if (copy.Length > 0)
        {
            Array.Sort(copy);
            LastP95Ms = copy[(int)(copy.Length * 0.95) - (copy.Length >= 20 ? 1 : 0)];
        }
        Interlocked.Increment(ref TimerTicks);
    }
}
