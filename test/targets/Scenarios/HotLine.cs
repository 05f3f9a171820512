using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// hot-line: thread "hot-line" calls HotLineWork.Mix many times, each call a short loop whose
/// body is one statement, on the line marked <c>// HOT LINE</c> (tests find the line by that
/// marker): a chain of dependent multiplications, so nearly all of Mix's CPU is spent on that
/// line and little on the loop's own increment and test. Mix is called often enough to be
/// re-compiled at tier 1, so its samples come from two code versions with different IL maps.
/// </summary>
public static class HotLineWork
{
    private static ulong s_sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Mix(ulong x, int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            x = ((((((x * 0x9E3779B97F4A7C15UL + 1) * 0xBF58476D1CE4E5B9UL + 3) * 0x94D049BB133111EBUL + 5) * 0x2545F4914F6CDD1DUL + 7) * 0xD6E8FEB86659FD93UL + 9) * 0xA0761D6478BD642FUL) ^ (x >> 31); // HOT LINE
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Drive(object? state)
    {
        var until = (long)state!;
        ulong x = 1;
        while (Stopwatch.GetTimestamp() < until) x = Mix(x, 20_000);
        Volatile.Write(ref s_sink, x);
        ThreadFacts.Record();
    }
}

internal sealed class HotLineScenario(Options o) : Scenario(o)
{
    public override string Name => "hot-line";

    protected override void OnStart() =>
        StartThread("hot-line", HotLineWork.Drive, Stopwatch.GetTimestamp() + (long)(Options.Seconds * Stopwatch.Frequency));

    protected override JsonObject Facts() => new();
}
