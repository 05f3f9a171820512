using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// The program owns SIGPROF. sigprof-default sets it to SIG_DFL (a SIGPROF from anyone then kills
/// the process, exit 155), sigprof-ignore to SIG_IGN, sigprof-handler installs a handler that
/// counts every SIGPROF by si_code without asking for any (it must count none), itimer-prof adds
/// setitimer(ITIMER_PROF, 1 ms), whose signals come with si_code SI_KERNEL (it must count those
/// and nothing else). The change comes while three threads burn CPU (a profiler's timers are
/// armed then), after which the main thread burns CPU in <see cref="AfterChange"/> (a profiler
/// that stopped sampling at the change has no sample there); the disposition is read back at
/// the end.
/// </summary>
public static class SigprofWork
{
    public enum Mode { Default, Ignore, Handler, Itimer }

    private static readonly string[] Dispositions = ["default", "ignore", "own-handler", "someone-else"];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong AfterChange(int rounds) => Burn.Spin(99, rounds, 1_000_000);

    public static unsafe JsonObject Run(Options o, Mode mode)
    {
        ulong burned = 0;
        var burners = new Thread(() => burned = Burn.OnThreads("sigprof", 2, o.Scaled(60), 1_000_000)) { Name = "sigprof-start" };
        burners.Start();
        Thread.Sleep(300);
        int rc = mode switch
        {
            Mode.Default => Native.SigprofDefault(),
            Mode.Ignore => Native.SigprofIgnore(),
            _ => Native.SigprofCount(),
        };
        if (mode == Mode.Itimer && rc == 0) rc = Native.ItimerProf(1000);
        ulong sum = AfterChange(o.Scaled(60));
        burners.Join();
        sum += burned;
        if (mode == Mode.Itimer) Native.ItimerProf(0);

        long* counts = stackalloc long[6];
        Native.SigprofCounts(counts);
        int disposition = Native.SigprofDisposition();
        var result = new JsonObject
        {
            ["setupErrno"] = rc,
            ["checksum"] = sum.ToString("x16"),
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
