using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// The program owns SIGPROF. sigprof-default sets it to SIG_DFL (a SIGPROF from anyone then kills
/// the process, exit 155), sigprof-ignore to SIG_IGN, sigprof-handler installs a handler that
/// counts every SIGPROF by si_code without asking for any (it must count none), itimer-prof adds
/// setitimer(ITIMER_PROF, 1 ms), whose signals come with si_code SI_KERNEL (it must count those
/// and nothing else). The change comes while two threads burn CPU (a profiler's timers are
/// armed then), after which the main thread burns CPU in <see cref="AfterChange"/> (a profiler
/// that stopped sampling at the change has no sample there); the disposition is read back at
/// the end.
/// </summary>
public static class SigprofWork
{
    public enum Mode { Default, Ignore, Handler, Itimer }

    private static readonly string[] Dispositions = ["default", "ignore", "own-handler", "someone-else"];

    private static volatile bool s_stop;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong AfterChange(int rounds) => Burn.Spin(99, rounds, 1_000_000);

    /// <summary>Burns CPU until told to stop, checking every round against the first.</summary>
    private static int Burner(int index)
    {
        ulong reference = Burn.Spin(index, 1, 1_000_000);
        int mismatches = 0;
        while (!s_stop)
        {
            if (Burn.Spin(index, 1, 1_000_000) != reference) mismatches++;
        }
        return mismatches;
    }

    public static unsafe JsonObject Run(Options o, Mode mode)
    {
        var mismatches = new int[2];
        var burners = Enumerable.Range(0, 2).Select(i => new Thread(() => mismatches[i] = Burner(i)) { Name = $"sigprof-{i}" }).ToList();
        burners.ForEach(t => t.Start());
        // The burners have run (and a profiler armed its timers for them) before the change.
        Thread.Sleep(300);
        int rc = mode switch
        {
            Mode.Default => Native.SigprofDefault(),
            Mode.Ignore => Native.SigprofIgnore(),
            _ => Native.SigprofCount(),
        };
        if (mode == Mode.Itimer && rc == 0) rc = Native.ItimerProf(1000);
        ulong sum = AfterChange(o.Scaled(150));
        s_stop = true;
        burners.ForEach(t => t.Join());
        if (mode == Mode.Itimer) Native.ItimerProf(0);

        long* counts = stackalloc long[6];
        Native.SigprofCounts(counts);
        int disposition = Native.SigprofDisposition();
        var result = new JsonObject
        {
            ["setupErrno"] = rc,
            ["checksum"] = sum.ToString("x16"),
            ["burnMismatches"] = mismatches.Sum(),
            ["dispositionAtEnd"] = disposition is >= 0 and < 4 ? Dispositions[disposition] : $"error {disposition}",
        };
        if (mode is Mode.Handler or Mode.Itimer)
        {
            // SI_KERNEL: the program's own ITIMER_PROF; anything else was sent by someone else.
            long foreign = counts[1] + counts[2] + counts[3] + counts[4] + counts[5];
            result["foreignSignals"] = new JsonObject
            {
                ["timer"] = counts[1], ["queue"] = counts[2], ["tkill"] = counts[3], ["user"] = counts[4], ["other"] = counts[5],
                ["total"] = foreign,
            };
            result["ownTimerSignals"] = mode == Mode.Itimer ? counts[0] > 0 : counts[0];
            Program.Fact(new JsonObject { ["kernel"] = counts[0], ["foreign"] = foreign });
        }
        return result;
    }
}
