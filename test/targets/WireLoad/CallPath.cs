using System.Runtime.CompilerServices;

namespace Clrscope.Targets.WireLoad;

/// <summary>
/// Distinct call paths on purpose: CallPath.Run(p) descends three levels, choosing at each level one of
/// seventeen methods M00..M16 by a base-17 digit of p, then burns CPU in Leaf.Burn. So 17^3 = 4,913 paths,
/// each its own stack (thread start → Stacks.Worker → CallPath.Run → Mxx → CallPath.Dispatch → Myy → CallPath.Dispatch
/// → Mzz → Leaf.Burn).
/// </summary>
public static class CallPath
{
    public const int Fanout = 17;
    public const int Levels = 3;
    public const int Count = Fanout * Fanout * Fanout;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Run(int path, ulong x) => Dispatch(Levels - 1, path, x);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Dispatch(int level, int path, ulong x)
    {
        int rest = path / Fanout;
        return (path % Fanout) switch
        {
            0 => M00(level, rest, x),
            1 => M01(level, rest, x),
            2 => M02(level, rest, x),
            3 => M03(level, rest, x),
            4 => M04(level, rest, x),
            5 => M05(level, rest, x),
            6 => M06(level, rest, x),
            7 => M07(level, rest, x),
            8 => M08(level, rest, x),
            9 => M09(level, rest, x),
            10 => M10(level, rest, x),
            11 => M11(level, rest, x),
            12 => M12(level, rest, x),
            13 => M13(level, rest, x),
            14 => M14(level, rest, x),
            15 => M15(level, rest, x),
            16 => M16(level, rest, x),
            _ => M16(level, rest, x),
        };
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M00(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 0) : Dispatch(level - 1, path, x * 3);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M01(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 1) : Dispatch(level - 1, path, x * 5);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M02(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 2) : Dispatch(level - 1, path, x * 7);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M03(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 3) : Dispatch(level - 1, path, x * 9);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M04(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 4) : Dispatch(level - 1, path, x * 11);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M05(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 5) : Dispatch(level - 1, path, x * 13);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M06(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 6) : Dispatch(level - 1, path, x * 15);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M07(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 7) : Dispatch(level - 1, path, x * 17);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M08(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 8) : Dispatch(level - 1, path, x * 19);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M09(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 9) : Dispatch(level - 1, path, x * 21);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M10(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 10) : Dispatch(level - 1, path, x * 23);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M11(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 11) : Dispatch(level - 1, path, x * 25);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M12(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 12) : Dispatch(level - 1, path, x * 27);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M13(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 13) : Dispatch(level - 1, path, x * 29);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M14(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 14) : Dispatch(level - 1, path, x * 31);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M15(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 15) : Dispatch(level - 1, path, x * 33);
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong M16(int level, int path, ulong x) => level == 0 ? Leaf.Burn(x + 16) : Dispatch(level - 1, path, x * 35);
}
