using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// async: thread "async-main" runs AsyncWork.Drive, which blocks on AsyncWork.RunAsync; RunAsync awaits
/// AsyncWork.StepAsync in a loop for --seconds, and each step awaits Task.Delay(DelayMs), computes
/// InlineMs in its own body (so StepAsync's MoveNext is on the stack of real CPU work, as in any
/// async method that does work between awaits) and then awaits
/// Task.Run(() => AsyncWork.Compute(...)) (about ComputeMs of CPU on a thread-pool thread).
/// </summary>
public static class AsyncWork
{
    public const int DelayMs = 5;
    public const double ComputeMs = 5;
    public const double InlineMs = 2;

    private static ulong s_sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Drive(object? state)
    {
        var s = (AsyncState)state!;
        s.Rounds = RunAsync(s.Duration, s.ComputeIterations).GetAwaiter().GetResult();
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<int> RunAsync(TimeSpan duration, long computeIterations)
    {
        long start = Stopwatch.GetTimestamp();
        int rounds = 0;
        while (Stopwatch.GetElapsedTime(start) < duration)
        {
            await StepAsync(computeIterations).ConfigureAwait(false);
            rounds++;
        }
        return rounds;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<ulong> StepAsync(long computeIterations)
    {
        await Task.Delay(DelayMs).ConfigureAwait(false);
        Compute((long)(computeIterations * (InlineMs / ComputeMs)));
        return await Task.Run(() => Compute(computeIterations)).ConfigureAwait(false);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Compute(long iterations)
    {
        ulong x = 0x9E3779B97F4A7C15UL;
        for (long i = 0; i < iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        Volatile.Write(ref s_sink, x);
        return x;
    }
}

public sealed class AsyncState(TimeSpan duration, long computeIterations)
{
    public TimeSpan Duration { get; } = duration;
    public long ComputeIterations { get; } = computeIterations;
    public int Rounds;
}

internal sealed class AsyncScenario(Options o) : Scenario(o)
{
    private AsyncState _state = null!;

    public override string Name => "async";

    protected override void OnStart()
    {
        _state = new AsyncState(Options.Duration, Calibration.IterationsFor(AsyncWork.ComputeMs));
        StartThread("async-main", AsyncWork.Drive, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["rounds"] = _state.Rounds,
        ["delayMs"] = AsyncWork.DelayMs,
        ["inlineMs"] = AsyncWork.InlineMs,
        ["computeIterations"] = _state.ComputeIterations,
    };
}
