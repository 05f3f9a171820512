using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>thread-churn: 5,000 short-lived named threads, 25 alive at a time, each doing a little work.</summary>
public static class ThreadChurn
{
    // About half a millisecond of CPU a thread: still far shorter than a 10 ms CPU timer, yet
    // enough that the recording has Work in it under a loaded machine (a tenth of that gave 5-8
    // samples in 1.4 s, and none once in CI).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Work(int i) => Kernel.Mix((ulong)i, 200_000);

    public static JsonObject Run(Options o)
    {
        int total = o.Scaled(5000);
        const int Wave = 25;
        var results = new ulong[total];
        for (int start = 0; start < total; start += Wave)
        {
            var wave = new List<Thread>();
            for (int i = start; i < Math.Min(total, start + Wave); i++)
            {
                int index = i;
                var t = new Thread(() => results[index] = Work(index)) { Name = $"churn-{i}" };
                t.Start();
                wave.Add(t);
            }
            foreach (Thread t in wave) t.Join();
        }
        ulong sum = 0;
        foreach (ulong r in results) sum += r;
        return new JsonObject { ["threads"] = total, ["checksum"] = sum.ToString("x16") };
    }
}
