using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// blocked-signals: four threads that alternate between working with signals blocked and
/// unblocked: managed work with every signal blocked but the runtime's own (its activation
/// signal and the synchronous fault signals, which managed code needs), native work with every
/// signal blocked, and managed work with the mask restored.
/// </summary>
public static class BlockedSignals
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong WorkBlocked(int thread, int round) => Kernel.Mix((ulong)(thread * 1000 + round), 3_000_000);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong WorkNativeBlocked(int round) => Native.NativeSpin(2_000_000 + (ulong)round);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong WorkOpen(int thread, int round) => Kernel.Mix((ulong)(thread * 7 + round), 1_000_000);

    private static (ulong Sum, int Spared, int All, int Errors) Loop(int thread, int rounds)
    {
        ulong sum = 0;
        int spared = 0, all = 0, errors = 0;
        for (int r = 0; r < rounds; r++)
        {
            errors += Native.BlockSignals(1) != 0 ? 1 : 0;
            spared = Native.BlockedCount();
            sum += WorkBlocked(thread, r);
            errors += Native.RestoreSignals() != 0 ? 1 : 0;
            sum += WorkOpen(thread, r);
            errors += Native.BlockSignals(0) != 0 ? 1 : 0;
            all = Native.BlockedCount();
            sum += WorkNativeBlocked(r);
            errors += Native.RestoreSignals() != 0 ? 1 : 0;
        }
        return (sum, spared, all, errors);
    }

    public static JsonObject Run(Options o)
    {
        int rounds = o.Scaled(40);
        var results = new (ulong Sum, int Spared, int All, int Errors)[4];
        var threads = Enumerable.Range(0, 4).Select(i => new Thread(() => results[i] = Loop(i, rounds)) { Name = $"masked-{i}" }).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        ulong sum = 0;
        foreach (var r in results) sum += r.Sum;
        return new JsonObject
        {
            ["rounds"] = rounds,
            ["checksum"] = sum.ToString("x16"),
            ["blockedWhileManaged"] = results[0].Spared,
            ["blockedWhileNative"] = results[0].All,
            ["maskErrors"] = results.Sum(r => r.Errors),
        };
    }
}
