using System.Runtime.CompilerServices;

namespace Clrscope.Targets.WireLoad;

public static class Leaf
{
    /// <summary>Iterations of the xorshift loop per Burn call (about 0.1 ms here).</summary>
    public static int Iterations = 40_000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Burn(ulong x)
    {
        x |= 1;
        for (int i = 0; i < Iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        return x;
    }
}
