// The CPU work of each process, each in a method no other process runs (the loop is the method's
// own, not a shared helper), so a recording's self time shows whose samples are whose.

using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Clrscope.Targets.ProcessTree;

public static class ParentWork
{
    /// <summary>Mixes numbers until `ms` milliseconds have passed; returns something the JIT cannot drop.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong HashParent(int ms)
    {
        var sw = Stopwatch.StartNew();
        var h = 1UL;
        while (sw.ElapsedMilliseconds < ms)
        {
            for (var i = 0; i < 100_000; i++) h = (h ^ (ulong)i) * 0x100000001b3UL;
        }
        return h;
    }
}

public static class AlphaWork
{
    /// <summary>Mixes numbers until `ms` milliseconds have passed; returns something the JIT cannot drop.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong HashAlpha(int ms)
    {
        var sw = Stopwatch.StartNew();
        var h = 2UL;
        while (sw.ElapsedMilliseconds < ms)
        {
            for (var i = 0; i < 100_000; i++) h = (h ^ (ulong)i) * 0x100000001b3UL;
        }
        return h;
    }
}

public static class BetaWork
{
    /// <summary>Mixes numbers until `ms` milliseconds have passed; returns something the JIT cannot drop.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong HashBeta(int ms)
    {
        var sw = Stopwatch.StartNew();
        var h = 3UL;
        while (sw.ElapsedMilliseconds < ms)
        {
            for (var i = 0; i < 100_000; i++) h = (h ^ (ulong)i) * 0x100000001b3UL;
        }
        return h;
    }
}
