using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>lock-convoy: 1,000 threads released at once, each taking one lock 60 times with a little work inside.</summary>
public static class LockConvoy
{
    private static readonly object Gate = new();
    private static long s_count;
    private static ulong s_sum;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Enter(int thread, int times)
    {
        for (int k = 0; k < times; k++)
        {
            lock (Gate)
            {
                s_count++;
                s_sum += Kernel.Mix((ulong)(thread * 1000 + k), 2_000);
            }
        }
    }

    public static JsonObject Run(Options o)
    {
        int threads = o.Scaled(1000);
        const int Times = 60;
        using var go = new ManualResetEventSlim(false);
        var list = new List<Thread>();
        for (int i = 0; i < threads; i++)
        {
            int index = i;
            var t = new Thread(() => { go.Wait(); Enter(index, Times); }) { Name = $"convoy-{i}" };
            t.Start();
            list.Add(t);
        }
        go.Set();
        foreach (Thread t in list) t.Join();
        return new JsonObject { ["threads"] = threads, ["count"] = s_count, ["checksum"] = s_sum.ToString("x16") };
    }
}
