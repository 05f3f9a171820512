using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// recursion: thread "deep" (64 MB stack) runs Recursion.Run → Recursion.Descend(1) → ... →
/// Recursion.Descend(depth) → Recursion.Bottom, which burns CPU for --seconds, then unwinds.
/// </summary>
public static class Recursion
{
    public const int StackSize = 64 * 1024 * 1024;

    private static int s_targetDepth = 10_000;
    private static TimeSpan s_bottomDuration;
    private static int s_maxDepth;
    private static int s_unwound;
    private static long s_bottomRounds;
    private static ulong s_sink;
    private static bool s_selfCheck;
    private static int s_framesAtBottom;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object? state)
    {
        var s = (RecursionState)state!;
        s_targetDepth = s.TargetDepth;
        s_bottomDuration = s.Duration;
        s_selfCheck = s.SelfCheck;
        s.Reached = Descend(1);
        s.MaxDepth = s_maxDepth;
        s.Unwound = s_unwound;
        s.BottomRounds = s_bottomRounds;
        s.FramesAtBottom = s_framesAtBottom;
        ThreadFacts.Record();
    }

    /// <summary>Frame number <paramref name="depth"/> (1-based) of the recursion; returns the deepest depth reached.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Descend(int depth)
    {
        if (depth > s_maxDepth) s_maxDepth = depth;
        int reached;
        if (depth >= s_targetDepth)
        {
            if (s_selfCheck) s_framesAtBottom = new StackTrace(false).FrameCount;
            Bottom();
            reached = depth;
        }
        else
        {
            reached = Descend(depth + 1);
        }
        s_unwound++; // work after the call: keeps the JIT from turning the recursion into a tail call or loop
        return reached;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Bottom()
    {
        long end = Stopwatch.GetTimestamp() + (long)(s_bottomDuration.TotalSeconds * Stopwatch.Frequency);
        ulong x = 0x9E3779B97F4A7C15UL;
        long rounds = 0;
        do
        {
            for (int i = 0; i < 65_536; i++)
            {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            rounds++;
        }
        while (Stopwatch.GetTimestamp() < end);
        Volatile.Write(ref s_sink, x);
        s_bottomRounds = rounds;
    }
}

public sealed class RecursionState(int targetDepth, TimeSpan duration, bool selfCheck)
{
    public bool SelfCheck { get; } = selfCheck;
    public int FramesAtBottom;
    public int TargetDepth { get; } = targetDepth;
    public TimeSpan Duration { get; } = duration;
    public int Reached;
    public int MaxDepth;
    public int Unwound;
    public long BottomRounds;
}

internal sealed class RecursionScenario(Options o) : Scenario(o)
{
    private RecursionState _state = null!;

    public override string Name => "recursion";

    protected override void OnStart()
    {
        _state = new RecursionState(Options.Depth, Options.Duration, Options.SelfCheck);
        StartThread("deep", Recursion.Run, _state, Recursion.StackSize);
    }

    protected override JsonObject Facts()
    {
        var facts = new JsonObject
        {
            ["targetDepth"] = _state.TargetDepth,
            ["maxDepth"] = _state.MaxDepth,
            ["unwound"] = _state.Unwound,
            ["bottomRounds"] = _state.BottomRounds,
            ["stackSize"] = Recursion.StackSize,
        };
        // Managed frames on the "deep" thread at the bottom (System.Diagnostics.StackTrace): at least targetDepth + 1
        // (Run) if the JIT kept every Descend frame.
        if (_state.SelfCheck) facts["framesAtBottom"] = _state.FramesAtBottom;
        return facts;
    }
}
