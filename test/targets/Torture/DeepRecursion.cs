using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// deep-recursion: 100,000 managed frames (Descend) on a thread with a 512 MiB stack, CPU work at
/// the bottom (Bottom), then back up.
/// </summary>
public static class DeepRecursion
{
    private const int Depth = 100_000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Bottom(int rounds)
    {
        ulong sum = 0;
        for (int r = 0; r < rounds; r++) sum += Kernel.Mix((ulong)r, 1_000_000);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Descend(int depth, int rounds)
    {
        if (depth == 0) return Bottom(rounds);
        // Using the callee's result after the call keeps this from becoming a tail call.
        ulong below = Descend(depth - 1, rounds);
        return below + (ulong)depth;
    }

    public static JsonObject Run(Options o)
    {
        ulong result = 0;
        var t = new Thread(() => result = Descend(Depth, o.Scaled(500)), 512 * 1024 * 1024) { Name = "deep" };
        t.Start();
        t.Join();
        return new JsonObject { ["depth"] = Depth, ["checksum"] = result.ToString("x16") };
    }
}
