using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.WireLoad;

/// <summary>
/// WireLoad lock [--threads N] [--seconds S]
///   one thread "lock-holder" holds a monitor for S seconds; N threads "waiter-K" block on it in
///   LockLoad.Wait, all under the same call path (the wire's best case: many threads, one stack).
/// WireLoad stacks [--threads N] [--seconds S]
///   N threads "stacks-K" run CallPath.Run over all 4,913 paths in a scattered order for S seconds
///   (CPU-bound, about 5,000 distinct stacks: the wire's case of many stacks).
/// Prints READY {...} once the load runs, then RESULT {...} at the end.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length == 0 || (args[0] != "lock" && args[0] != "stacks")) return Usage("give a mode: lock or stacks");
        string mode = args[0];
        int threads = mode == "lock" ? 200 : 2;
        double seconds = 10;
        for (int i = 1; i < args.Length; i++)
        {
            bool ok = i + 1 < args.Length;
            switch (args[i])
            {
                case "--threads" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int t) && t is >= 1 and <= 2000:
                    threads = t; i++; break;
                case "--seconds" when ok && double.TryParse(args[i + 1], NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s > 0:
                    seconds = s; i++; break;
                default:
                    return Usage($"bad argument '{args[i]}'");
            }
        }
        var duration = TimeSpan.FromSeconds(seconds);
        long start = Stopwatch.GetTimestamp();
        JsonObject facts = mode == "lock" ? LockLoad.Run(threads, duration) : Stacks.Run(threads, duration);
        facts["program"] = "WireLoad";
        facts["mode"] = mode;
        facts["threads"] = threads;
        // What a profiler's MODULE and FUNCTION records should say about this program's code:
        // the module's MVID (the bytes of Guid.ToByteArray(), as hex) and two methods' tokens.
        facts["moduleVersionId"] = Convert.ToHexString(typeof(Program).Module.ModuleVersionId.ToByteArray()).ToLowerInvariant();
        facts["tokens"] = new JsonObject
        {
            ["Leaf.Burn"] = typeof(Leaf).GetMethod(nameof(Leaf.Burn))!.MetadataToken,
            ["CallPath.Run"] = typeof(CallPath).GetMethod(nameof(CallPath.Run))!.MetadataToken,
            ["LockLoad.Wait"] = typeof(LockLoad).GetMethod(nameof(LockLoad.Wait))!.MetadataToken,
        };
        facts["elapsedMs"] = Math.Round(Stopwatch.GetElapsedTime(start).TotalMilliseconds, 1);
        Console.WriteLine($"RESULT {facts.ToJsonString()}");
        return 0;
    }

    private static int Usage(string why)
    {
        Console.Error.WriteLine($"WireLoad: {why}");
        Console.Error.WriteLine("usage: WireLoad lock|stacks [--threads N] [--seconds S]");
        return 2;
    }

    public static void Ready(string mode, int threads) =>
        Console.WriteLine($"READY {{\"pid\":{Environment.ProcessId},\"mode\":\"{mode}\",\"threads\":{threads}}}");
}

public static class LockLoad
{
    private static readonly object s_gate = new();

    public static JsonObject Run(int threads, TimeSpan duration)
    {
        using var held = new ManualResetEventSlim(false);
        var holder = new Thread(() => Hold(held, duration)) { Name = "lock-holder" };
        holder.Start();
        held.Wait();
        var waiters = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            waiters[i] = new Thread(Wait) { Name = $"waiter-{i}" };
            waiters[i].Start();
        }
        Program.Ready("lock", threads);
        holder.Join();
        foreach (Thread t in waiters) t.Join();
        return new JsonObject { ["acquired"] = s_acquired };
    }

    private static int s_acquired;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Hold(ManualResetEventSlim held, TimeSpan duration)
    {
        lock (s_gate)
        {
            held.Set();
            Thread.Sleep(duration);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Wait()
    {
        lock (s_gate) s_acquired++;
    }
}

public static class Stacks
{
    public static JsonObject Run(int threads, TimeSpan duration)
    {
        var workers = new Thread[threads];
        var calls = new long[threads];
        var sums = new ulong[threads];
        long deadline = Stopwatch.GetTimestamp() + (long)(duration.TotalSeconds * Stopwatch.Frequency);
        for (int i = 0; i < threads; i++)
        {
            int k = i;
            workers[i] = new Thread(() => Worker(k, deadline, calls, sums)) { Name = $"stacks-{i}" };
            workers[i].Start();
        }
        Program.Ready("stacks", threads);
        foreach (Thread t in workers) t.Join();
        ulong sum = 0;
        foreach (ulong s in sums) sum += s;
        return new JsonObject { ["paths"] = CallPath.Count, ["calls"] = calls.Sum(), ["sum"] = sum.ToString("x16", CultureInfo.InvariantCulture) };
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Worker(int index, long deadline, long[] calls, ulong[] sums)
    {
        ulong x = (ulong)index + 1;
        long n = 0;
        // 2,003 is prime to 4,913 (= 17^3), so stepping by it visits every path once per cycle, scattered.
        int path = index * 1_231 % CallPath.Count;
        while (Stopwatch.GetTimestamp() < deadline)
        {
            x = CallPath.Run(path, x);
            path = (path + 2_003) % CallPath.Count;
            n++;
        }
        calls[index] = n;
        sums[index] = x;
    }
}
