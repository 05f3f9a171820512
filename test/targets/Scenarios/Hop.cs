using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// hop: thread "hopper" waits in HopWork.WaitInA, then in HopWork.WaitInB, over and over, with next
/// to no CPU in between; thread "hop-pulser" releases A after WaitAMs and B after WaitBMs. So the
/// hopper spends WaitAMs of every round in A and WaitBMs in B: a profiler that answers a waiting
/// thread from its previous stack must notice every hop.
/// </summary>
public static class HopWork
{
    public const int WaitAMs = 20;
    public const int WaitBMs = 60;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Hop(object? state)
    {
        var s = (HopState)state!;
        while (!s.Stop)
        {
            WaitInA(s);
            WaitInB(s);
            s.Rounds++;
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WaitInA(HopState s) => s.A.WaitOne();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WaitInB(HopState s) => s.B.WaitOne();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Pulse(object? state)
    {
        var s = (HopState)state!;
        long start = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(start) < s.Duration)
        {
            Thread.Sleep(WaitAMs);
            s.A.Set();
            Thread.Sleep(WaitBMs);
            s.B.Set();
        }
        s.Stop = true;
        s.A.Set();
        s.B.Set();
        ThreadFacts.Record();
    }
}

public sealed class HopState(TimeSpan duration)
{
    public TimeSpan Duration { get; } = duration;
    public AutoResetEvent A { get; } = new(false);
    public AutoResetEvent B { get; } = new(false);
    public volatile bool Stop;
    public int Rounds;
}

internal sealed class HopScenario(Options o) : Scenario(o)
{
    private HopState _state = null!;

    public override string Name => "hop";

    protected override void OnStart()
    {
        _state = new HopState(Options.Duration);
        StartThread("hopper", HopWork.Hop, _state);
        StartThread("hop-pulser", HopWork.Pulse, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["rounds"] = _state.Rounds,
        ["waitAMs"] = HopWork.WaitAMs,
        ["waitBMs"] = HopWork.WaitBMs,
    };
}
