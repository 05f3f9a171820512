using System.Runtime.CompilerServices;

namespace Clrscope.Targets.Torture;

/// <summary>
/// The CPU work every scenario does: the same hash as native/torture_spin.h, so its results are
/// checksums that change if anything (a signal handler clobbering a register, a lost write)
/// disturbed the computation.
/// </summary>
public static class Kernel
{
    // Optimized from the first call: no tier-0 code with on-stack replacement, whose frames the
    // profiler does not yet walk to their caller (issue 10, item 15, tested elsewhere).
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static ulong Mix(ulong seed, ulong iterations)
    {
        ulong h = seed;
        for (ulong i = 0; i < iterations; i++)
        {
            h ^= i + 0x9e3779b97f4a7c15UL + (h << 6) + (h >> 2);
            h *= 0xff51afd7ed558ccdUL;
        }
        // A call (never taken in practice) keeps this from being a frameless leaf: the JIT gives
        // it an RBP frame, so a walk from inside the loop sees its caller. The profiler's known
        // limitation with frameless leaves is not what the torture cases test.
        return h == 0 ? Zero() : h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Zero() => 1;
}

/// <summary>Threads that burn CPU in <see cref="Spin"/> for a fixed number of rounds.</summary>
public static class Burn
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Spin(int thread, int rounds, ulong iterations)
    {
        ulong sum = 0;
        for (int r = 0; r < rounds; r++) sum += Kernel.Mix((ulong)(thread * 1000 + r), iterations);
        return sum;
    }

    /// <summary>Runs Spin on `threads` named threads and returns the sum of their results.</summary>
    public static ulong OnThreads(string name, int threads, int rounds, ulong iterations)
    {
        var results = new ulong[threads];
        var list = new List<Thread>();
        for (int t = 0; t < threads; t++)
        {
            int index = t;
            var th = new Thread(() => results[index] = Spin(index, rounds, iterations)) { Name = $"{name}-{t}" };
            th.Start();
            list.Add(th);
        }
        foreach (Thread th in list) th.Join();
        ulong sum = 0;
        foreach (ulong r in results) sum += r;
        return sum;
    }
}
