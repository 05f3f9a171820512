using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// fork: while two threads burn CPU (so timers are armed and samples requested), the main thread
/// forks 150 times through native code (the child spins briefly, then _exit(i % 100)) and starts
/// /bin/sh 20 times with Process.Start (exit i). The burners check every round against the first.
/// </summary>
public static class ForkWork
{
    private static volatile bool s_stop;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Burn(int index)
    {
        ulong reference = Kernel.Mix((ulong)index, 500_000);
        int mismatches = 0;
        while (!s_stop)
        {
            if (Kernel.Mix((ulong)index, 500_000) != reference) mismatches++;
        }
        return mismatches;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ForkLoop(int forks)
    {
        int sum = 0;
        for (int i = 0; i < forks; i++) sum += Native.ForkExit(i % 100, 300_000);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int SpawnLoop(int spawns)
    {
        int sum = 0;
        for (int i = 0; i < spawns; i++)
        {
            using var p = Process.Start(new ProcessStartInfo("/bin/sh", ["-c", $"exit {i}"]) { UseShellExecute = false })!;
            p.WaitForExit();
            sum += p.ExitCode;
        }
        return sum;
    }

    public static JsonObject Run(Options o)
    {
        var mismatches = new int[2];
        var burners = Enumerable.Range(0, 2).Select(i => new Thread(() => mismatches[i] = Burn(i)) { Name = $"fork-burn-{i}" }).ToList();
        burners.ForEach(t => t.Start());
        int forks = o.Scaled(150), spawns = o.Scaled(20);
        int forkSum = ForkLoop(forks);
        int spawnSum = SpawnLoop(spawns);
        s_stop = true;
        burners.ForEach(t => t.Join());
        return new JsonObject
        {
            ["forks"] = forks,
            ["forkExitSum"] = forkSum,
            ["spawns"] = spawns,
            ["spawnExitSum"] = spawnSum,
            ["burnMismatches"] = mismatches.Sum(),
        };
    }
}
