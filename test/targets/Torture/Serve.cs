using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// serve: a long-running process for attach tests. Two threads burn CPU without allocating (each
/// round checked against the first), one sleeps in a loop; it ends when its stdin closes or after
/// --seconds, whichever comes first.
/// </summary>
public static class Serve
{
    private static volatile bool s_stop;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Steady(int index)
    {
        ulong reference = Kernel.Mix((ulong)index, 400_000);
        int mismatches = 0;
        while (!s_stop)
        {
            if (Kernel.Mix((ulong)index, 400_000) != reference) mismatches++;
        }
        return mismatches;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Nap()
    {
        while (!s_stop) Thread.Sleep(20);
    }

    public static JsonObject Run(Options o)
    {
        var mismatches = new int[2];
        var threads = Enumerable.Range(0, 2).Select(i => new Thread(() => mismatches[i] = Steady(i)) { Name = $"steady-{i}" }).ToList();
        threads.Add(new Thread(Nap) { Name = "napper" });
        threads.ForEach(t => t.Start());
        var stdin = new Thread(() => { Console.In.ReadToEnd(); s_stop = true; }) { IsBackground = true, Name = "stdin" };
        stdin.Start();
        var clock = Stopwatch.StartNew();
        while (!s_stop && clock.Elapsed.TotalSeconds < o.Seconds) Thread.Sleep(50);
        s_stop = true;
        threads.ForEach(t => t.Join());
        return new JsonObject { ["mismatches"] = mismatches.Sum() };
    }
}
