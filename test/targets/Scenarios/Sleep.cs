using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>sleep: thread "sleeper" runs SleepWork.Doze, which calls Thread.Sleep in a loop for --seconds.</summary>
public static class SleepWork
{
    public const int SliceMs = 50;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Doze(object? state)
    {
        var s = (SleepState)state!;
        long start = Stopwatch.GetTimestamp();
        while (true)
        {
            TimeSpan remaining = s.Duration - Stopwatch.GetElapsedTime(start);
            if (remaining <= TimeSpan.Zero) break;
            Thread.Sleep(remaining.TotalMilliseconds < SliceMs ? remaining : TimeSpan.FromMilliseconds(SliceMs));
            s.Sleeps++;
        }
        ThreadFacts.Record();
    }
}

public sealed class SleepState(TimeSpan duration)
{
    public TimeSpan Duration { get; } = duration;
    public int Sleeps;
}

internal sealed class SleepScenario(Options o) : Scenario(o)
{
    private SleepState _state = null!;

    public override string Name => "sleep";

    protected override void OnStart()
    {
        _state = new SleepState(Options.Duration);
        StartThread("sleeper", SleepWork.Doze, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["sleeps"] = _state.Sleeps,
        ["sliceMs"] = SleepWork.SliceMs,
        ["cpuMs"] = Math.Round(ThreadFacts.CpuMsOf("sleeper"), 1),
    };
}
