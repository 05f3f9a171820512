using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// pool-load: a steady thread-pool service for --seconds, so a process's counters (allocation rate,
/// thread-pool threads, queue length and completed items, CPU, working set, GC handles) are
/// steady enough to compare between two readers over the same seconds. Thread "pool-feeder"
/// queues <see cref="PoolLoadWork.ItemsPerTick"/> work items every <see cref="PoolLoadWork.TickMs"/> ms;
/// each allocates <see cref="PoolLoadWork.BytesPerItem"/> bytes in small arrays and spins a
/// little; one in <see cref="PoolLoadWork.BlockEvery"/> sleeps, which keeps more pool threads busy
/// and a queue waiting. It holds <see cref="PoolLoadWork.Handles"/> GC handles for the whole run
/// and induces a gen-2 GC once a second (the runtime resyncs its handle count at gen-2 GCs).
/// </summary>
public static class PoolLoadWork
{
    public const int TickMs = 10;
    public const int ItemsPerTick = 20;
    public const int BytesPerItem = 16 * 1024;
    public const int BlockEvery = 50;
    public const int BlockMs = 20;
    public const int Handles = 5000;

    private static long _completed;
    private static long _sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Feed(object? state)
    {
        var s = (PoolLoadState)state!;
        var handles = new GCHandle[Handles];
        for (int i = 0; i < handles.Length; i++) handles[i] = GCHandle.Alloc(new object());
        long allocatedBefore = GC.GetTotalAllocatedBytes(false);
        long start = Stopwatch.GetTimestamp();
        long lastGc = start;
        long n = 0;
        for (int tick = 1; Stopwatch.GetElapsedTime(start) < s.Duration; tick++)
        {
            for (int i = 0; i < ItemsPerTick; i++, n++)
            {
                bool block = n % BlockEvery == 0;
                ThreadPool.UnsafeQueueUserWorkItem(static b => Item(b), block, preferLocal: false);
            }
            if (Stopwatch.GetElapsedTime(lastGc) >= TimeSpan.FromSeconds(1))
            {
                GC.Collect(2);
                lastGc = Stopwatch.GetTimestamp();
            }
            TimeSpan next = TimeSpan.FromMilliseconds(tick * TickMs) - Stopwatch.GetElapsedTime(start);
            if (next > TimeSpan.Zero) Thread.Sleep(next);
        }
        while (Interlocked.Read(ref _completed) < n) Thread.Sleep(5);
        s.Queued = n;
        s.Completed = Interlocked.Read(ref _completed);
        s.AllocatedBytes = GC.GetTotalAllocatedBytes(false) - allocatedBefore;
        foreach (GCHandle h in handles) h.Free();
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Item(bool block)
    {
        long sum = 0;
        for (int made = 0; made < BytesPerItem; made += 256)
        {
            var a = new byte[256 - 24];
            a[0] = (byte)made;
            sum += a[0] + a.Length;
        }
        if (block) Thread.Sleep(BlockMs);
        Interlocked.Add(ref _sink, sum);
        Interlocked.Increment(ref _completed);
    }
}

public sealed class PoolLoadState(TimeSpan duration)
{
    public TimeSpan Duration { get; } = duration;
    public long Queued;
    public long Completed;
    public long AllocatedBytes;
}

internal sealed class PoolLoadScenario(Options o) : Scenario(o)
{
    private PoolLoadState _state = null!;

    public override string Name => "pool-load";

    protected override void OnStart()
    {
        _state = new PoolLoadState(Options.Duration);
        StartThread("pool-feeder", PoolLoadWork.Feed, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["queued"] = _state.Queued,
        ["completed"] = _state.Completed,
        ["allocatedBytes"] = _state.AllocatedBytes,
        ["handles"] = PoolLoadWork.Handles,
    };
}
