using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Demo;

/// <summary>
/// Demo: a fake order service for clrscope newcomers. Runs until Ctrl+C / SIGTERM, or for --seconds N.
/// Prints a progress line every 5 s and, on a clean stop, RESULT {json}.
/// </summary>
public static class Program
{
    private const int ReportEverySeconds = 5;

    public static int Main(string[] args)
    {
        double? seconds = null;
        int workers = 2;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--seconds" && i + 1 < args.Length &&
                double.TryParse(args[++i], NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s > 0)
                seconds = s;
            else if (args[i] == "--workers" && i + 1 < args.Length &&
                int.TryParse(args[++i], NumberStyles.Integer, CultureInfo.InvariantCulture, out int w) && w is >= 1 and <= 64)
                workers = w;
            else
            {
                Console.Error.WriteLine($"Demo: bad argument '{args[i]}'");
                Console.Error.WriteLine("usage: Demo [--seconds N] [--workers N]");
                return 2;
            }
        }

        using var stop = new CancellationTokenSource();
        Console.CancelKeyPress += (_, e) => { e.Cancel = true; stop.Cancel(); };
        using PosixSignalRegistration term = PosixSignalRegistration.Create(PosixSignal.SIGTERM, ctx => { ctx.Cancel = true; stop.Cancel(); });
        if (seconds is double limit) stop.CancelAfter(TimeSpan.FromSeconds(limit));

        Console.WriteLine($"Demo order service, pid {Environment.ProcessId}. " +
                          (seconds is null ? "Runs until Ctrl+C." : $"Runs for {seconds} s."));

        long start = Stopwatch.GetTimestamp();
        var threads = new List<Thread>();
        for (int i = 1; i <= workers; i++)
            threads.Add(StartThread($"order-worker-{i}", OrderService.Run, new WorkerState(i, stop.Token)));
        threads.Add(StartThread("stock-poller", Inventory.PollSupplier, stop.Token));
        var notifier = StartThread("notifier", Notifications.SendLoop, null);
        using var timer = new Timer(Metrics.OnTimer, null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));

        while (!stop.Token.WaitHandle.WaitOne(TimeSpan.FromSeconds(ReportEverySeconds)))
            Report(start);

        foreach (Thread t in threads) t.Join();
        Notifications.Complete();
        notifier.Join();
        Report(start);

        var result = new JsonObject
        {
            ["program"] = "Demo",
            ["pid"] = Environment.ProcessId,
            ["elapsedMs"] = Math.Round(Stopwatch.GetElapsedTime(start).TotalMilliseconds, 1),
            ["workers"] = workers,
            ["ordersProcessed"] = Interlocked.Read(ref OrderService.Processed),
            ["batches"] = Interlocked.Read(ref OrderService.Batches),
            ["rejected"] = Interlocked.Read(ref OrderService.Rejected),
            ["serializedBytes"] = Interlocked.Read(ref OrderService.SerializedBytes),
            ["reservations"] = Inventory.Reservations,
            ["restocks"] = Interlocked.Read(ref Inventory.Restocks),
            ["supplierTimeouts"] = Interlocked.Read(ref Inventory.SupplierTimeouts),
            ["notificationsSent"] = Interlocked.Read(ref Notifications.Sent),
            ["timerTicks"] = Interlocked.Read(ref Metrics.TimerTicks),
            ["gen0Collections"] = GC.CollectionCount(0),
            ["allocatedBytes"] = GC.GetTotalAllocatedBytes(),
            ["phaseMs"] = new JsonObject
            {
                ["price"] = TicksToMs(Interlocked.Read(ref OrderService.PriceTicks)),
                ["reserve"] = TicksToMs(Interlocked.Read(ref OrderService.ReserveTicks)),
                ["serialize"] = TicksToMs(Interlocked.Read(ref OrderService.SerializeTicks)),
            },
        };
        Console.WriteLine($"RESULT {result.ToJsonString()}");
        return 0;
    }

    private static void Report(long start)
    {
        double elapsed = Stopwatch.GetElapsedTime(start).TotalSeconds;
        long processed = Interlocked.Read(ref OrderService.Processed);
        Console.WriteLine(
            $"[demo {elapsed,6:F1}s] orders processed: {processed} ({processed / Math.Max(elapsed, 0.001):F0}/s), " +
            $"rejected {Interlocked.Read(ref OrderService.Rejected)}, supplier timeouts {Interlocked.Read(ref Inventory.SupplierTimeouts)}, " +
            $"batch p95 {Metrics.LastP95Ms:F1} ms, GCs {GC.CollectionCount(0)}");
    }

    private static double TicksToMs(long ticks) => Math.Round(ticks * 1000.0 / Stopwatch.Frequency, 1);

    private static Thread StartThread(string name, ParameterizedThreadStart body, object? state)
    {
        var t = new Thread(body) { Name = name, IsBackground = false };
        t.Start(state);
        return t;
    }
}
