using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// library-swap: dlopen libtorture_big.so, call its torture_big_spin on several threads so that
/// samples land in it, dlclose it, dlopen libtorture_small.so, which the loader puts into the
/// hole big left (its code inside big's old code, big's old unwind table header inside small's
/// PROT_NONE gap: see native/swap_big.c and native/swap_small.ld), call into small the same way,
/// dlclose it; many cycles. A FACT line per run says in how many cycles small landed inside big's
/// old range and big's old unwind header became unreadable (what makes a stale module table fatal).
/// </summary>
public static unsafe class LibrarySwap
{
    private const ulong Iterations = 1_000_000;
    private const int CallsPerPhase = 2;
    private const int Workers = 3;

    private static delegate* unmanaged<ulong, ulong> s_spin;
    private static bool s_small;
    private static bool s_stop;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong CallBig(delegate* unmanaged<ulong, ulong> spin, ulong n) => spin(n);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong CallSmall(delegate* unmanaged<ulong, ulong> spin, ulong n) => spin(n);

    public static JsonObject Run(Options o)
    {
        int cycles = o.Scaled(100);
        var barrier = new Barrier(Workers + 1);
        var sums = new ulong[Workers];
        var threads = new List<Thread>();
        for (int w = 0; w < Workers; w++)
        {
            int index = w;
            var t = new Thread(() => Work(index, barrier, sums)) { Name = $"swap-{w}" };
            t.Start();
            threads.Add(t);
        }

        int landedInside = 0, headerGone = 0, loadFailures = 0;
        nuint firstBig = 0, firstSmall = 0;
        for (int c = 0; c < cycles; c++)
        {
            IntPtr big = Native.DlOpen(Native.LibraryPath("torture_big"), Native.RtldNow);
            if (big == IntPtr.Zero) { loadFailures++; break; }
            var bigRange = (delegate* unmanaged<nuint*, nuint*, void>)Native.DlSym(big, "torture_big_range");
            nuint bigLo, bigHi;
            bigRange(&bigLo, &bigHi);
            s_spin = (delegate* unmanaged<ulong, ulong>)Native.DlSym(big, "torture_big_spin");
            nuint bigHeader = Native.EhFrameHdrOf((nuint)s_spin);
            s_small = false;
            Phase(barrier);
            Native.DlClose(big);

            IntPtr small = Native.DlOpen(Native.LibraryPath("torture_small"), Native.RtldNow);
            if (small == IntPtr.Zero) { loadFailures++; break; }
            var smallRange = (delegate* unmanaged<nuint*, nuint*, void>)Native.DlSym(small, "torture_small_range");
            nuint smallLo, smallHi;
            smallRange(&smallLo, &smallHi);
            s_spin = (delegate* unmanaged<ulong, ulong>)Native.DlSym(small, "torture_small_spin");
            if (smallLo >= bigLo && smallHi <= bigHi && (nuint)s_spin >= bigLo && (nuint)s_spin < bigHi) landedInside++;
            if (bigHeader != 0 && Native.IsReadable(bigHeader) == 0) headerGone++;
            if (c == 0) { firstBig = bigLo; firstSmall = smallLo; }
            s_small = true;
            Phase(barrier);
            Native.DlClose(small);
        }
        s_stop = true;
        barrier.SignalAndWait();
        foreach (Thread t in threads) t.Join();

        Program.Fact(new JsonObject
        {
            ["cycles"] = cycles,
            ["smallInsideBig"] = landedInside,
            ["bigUnwindHeaderUnreadable"] = headerGone,
            ["firstBig"] = $"0x{firstBig:x}",
            ["firstSmall"] = $"0x{firstSmall:x}",
        });
        ulong sum = 0;
        foreach (ulong s in sums) sum += s;
        return new JsonObject
        {
            ["cycles"] = cycles,
            ["loadFailures"] = loadFailures,
            ["checksum"] = sum.ToString("x16"),
        };
    }

    /// <summary>Lets the workers run one phase in the current library and waits until they are out of it.</summary>
    private static void Phase(Barrier barrier)
    {
        barrier.SignalAndWait();
        barrier.SignalAndWait();
    }

    private static void Work(int index, Barrier barrier, ulong[] sums)
    {
        for (;;)
        {
            barrier.SignalAndWait();
            if (s_stop) return;
            delegate* unmanaged<ulong, ulong> spin = s_spin;
            for (int i = 0; i < CallsPerPhase; i++)
            {
                ulong n = Iterations + (ulong)(index * CallsPerPhase + i);
                sums[index] += s_small ? CallSmall(spin, n) : CallBig(spin, n);
            }
            barrier.SignalAndWait();
        }
    }
}
