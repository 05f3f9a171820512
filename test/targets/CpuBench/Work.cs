using System.Numerics;
using System.Runtime.CompilerServices;

namespace Clrscope.Targets.CpuBench;

/// <summary>
/// One unit of deterministic work: integer mixing, a small Dictionary workload and a binary recursion
/// of depth 6..10 whose leaves do integer mixing. Unit(i) depends only on i, so the checksum (wrapping
/// sum of all units) depends only on --work, not on --threads or scheduling.
/// Typical stack: thread start → Bench.Worker → Work.RunRange → Work.Unit → Work.TreeWalk ×(6..10) → Work.IntegerMix.
/// </summary>
public static class Work
{
    public const int MixRounds = 64;
    public const int LeafRounds = 8;
    public const int DictionaryKeys = 48;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong RunRange(long first, long end, Dictionary<int, int> scratch)
    {
        ulong sum = 0;
        for (long i = first; i < end; i++)
            sum += Unit(i, scratch);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Unit(long i, Dictionary<int, int> scratch)
    {
        ulong seed = SplitMix((ulong)i);
        ulong a = IntegerMix(seed, MixRounds);
        ulong b = DictionaryPhase(seed, scratch);
        ulong c = TreeWalk(seed ^ 0xA5A5A5A5A5A5A5A5UL, 6 + (int)(i % 5));
        return a ^ BitOperations.RotateLeft(b, 21) ^ BitOperations.RotateLeft(c, 42);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong IntegerMix(ulong x, int rounds)
    {
        for (int r = 0; r < rounds; r++)
        {
            x ^= x >> 31;
            x *= 0x7FB5D329728EA185UL;
            x ^= x >> 27;
            x *= 0x81DADEF4BC2DD44DUL;
            x ^= x >> 33;
        }
        return x;
    }

    /// <summary>Fills a small Dictionary&lt;int,int&gt; from the seed, then looks up twice as many keys (about half hit).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong DictionaryPhase(ulong seed, Dictionary<int, int> scratch)
    {
        scratch.Clear();
        ulong x = seed;
        for (int k = 0; k < DictionaryKeys; k++)
        {
            x = SplitMix(x);
            int key = (int)(x & 0x7F);
            scratch[key] = scratch.TryGetValue(key, out int v) ? v + (int)(x >> 40) : (int)(x >> 40);
        }
        ulong acc = 0;
        for (int k = 0; k < 2 * DictionaryKeys; k++)
        {
            x = SplitMix(x);
            if (scratch.TryGetValue((int)(x & 0xFF), out int v)) acc = acc * 31 + (ulong)(uint)v;
            else acc ^= x;
        }
        return acc + (ulong)scratch.Count;
    }

    /// <summary>Binary recursion: 2^depth leaves, each an IntegerMix of LeafRounds rounds.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong TreeWalk(ulong seed, int depth)
    {
        if (depth == 0) return IntegerMix(seed, LeafRounds) + 1; // "+ 1": not a tail call, so the leaf TreeWalk frame stays
        ulong left = TreeWalk(seed * 3 + 1, depth - 1);
        ulong right = TreeWalk(seed * 5 + 7, depth - 1);
        return left ^ BitOperations.RotateLeft(right, depth);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong SplitMix(ulong x)
    {
        x += 0x9E3779B97F4A7C15UL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
        return x ^ (x >> 31);
    }
}
