using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Measure;

/// <summary>
/// The cost of a measured call: loops over Trivial (the one to measure) and over its twin
/// TrivialTwin (never measured), in alternating chunks so both see the same machine load.
/// Both are NoInlining, so both loops pay a real call and the difference is the probes' cost.
/// </summary>
public static class Bench
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Trivial(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TrivialTwin(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Loop(int n)
    {
        long sum = 0;
        for (int i = 0; i < n; i++) sum += Trivial(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long LoopTwin(int n)
    {
        long sum = 0;
        for (int i = 0; i < n; i++) sum += TrivialTwin(i);
        return sum;
    }

    static double NsPerCall(Func<int, long> loop, int n)
    {
        long start = Stopwatch.GetTimestamp();
        loop(n);
        return Stopwatch.GetElapsedTime(start).TotalNanoseconds / n;
    }

    public static JsonObject Run(double seconds, int chunkCalls)
    {
        // Tier both loops up first (those calls of Trivial count too).
        long calls = 50 * 1000;
        for (int i = 0; i < 50; i++)
        {
            Loop(1000);
            LoopTwin(1000);
        }
        Thread.Sleep(200);
        var measured = new List<double>();
        var plain = new List<double>();
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            measured.Add(NsPerCall(Loop, chunkCalls));
            plain.Add(NsPerCall(LoopTwin, chunkCalls));
            calls += chunkCalls;
        }
        measured.Sort();
        plain.Sort();
        return new JsonObject
        {
            ["chunks"] = measured.Count,
            ["callsOfTrivial"] = calls,
            ["measuredNsPerCall"] = measured[measured.Count / 2],
            ["plainNsPerCall"] = plain[plain.Count / 2],
            // The fastest chunk of each: interference from the rest of a shared machine only adds time.
            ["measuredFastestNsPerCall"] = measured[0],
            ["plainFastestNsPerCall"] = plain[0],
        };
    }

    /// <summary>Calls Trivial without pause until the duration ends; returns how often.</summary>
    public static long Spin(double seconds)
    {
        long calls = 0;
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            Loop(10_000);
            calls += 10_000;
        }
        return calls;
    }
}
