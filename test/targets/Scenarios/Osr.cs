using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// osr: thread "osr-main" blocks on OsrWork.ScoreAsync, an async method that, after a
/// Task.Yield (so it continues on a thread-pool thread), calls OsrWork.Burn a few times, each
/// call one long loop. Burn is called too few times to be re-compiled as a whole, so the runtime
/// moves each call from its first (tier-0) code into optimized code in the middle of the loop
/// (on-stack replacement): every stack through Burn must still lead to ScoreAsync's MoveNext,
/// with Burn once.
/// </summary>
public static class OsrWork
{
    public const int BurnCalls = 6;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Drive(object? state)
    {
        var s = (OsrState)state!;
        s.Result = ScoreAsync(s.IterationsPerCall).GetAwaiter().GetResult();
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<ulong> ScoreAsync(long iterationsPerCall)
    {
        await Task.Yield();
        ulong acc = 0;
        for (int i = 0; i < BurnCalls; i++) acc += Burn(iterationsPerCall);
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Burn(long iterations)
    {
        ulong x = 0x9E3779B97F4A7C15UL;
        for (long i = 0; i < iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        return x;
    }
}

public sealed class OsrState(long iterationsPerCall)
{
    public long IterationsPerCall { get; } = iterationsPerCall;
    public ulong Result;
}

internal sealed class OsrScenario(Options o) : Scenario(o)
{
    private OsrState _state = null!;

    public override string Name => "osr";

    protected override void OnStart()
    {
        // Tier-0 code runs the loop several times slower than the calibration kernel; aim at
        // about --seconds in all.
        long perCall = (long)(Calibration.IterationsPerMs * Options.Seconds * 1000 / OsrWork.BurnCalls / 4);
        _state = new OsrState(Math.Max(perCall, 1_000_000));
        StartThread("osr-main", OsrWork.Drive, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["burnCalls"] = OsrWork.BurnCalls,
        ["result"] = _state.Result.ToString(System.Globalization.CultureInfo.InvariantCulture),
    };
}
