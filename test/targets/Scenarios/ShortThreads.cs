using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// threads: thread "short-spawner" runs ShortThreads.Spawn, which starts Count threads named
/// "short-0".."short-199", Concurrency at a time (start a batch, join it, next batch); each runs
/// ShortThreads.Body, about BodyMs of CPU.
/// </summary>
public static class ShortThreads
{
    public const int Count = 200;
    public const int Concurrency = 20;
    public const double BodyMs = 5;

    private static ulong s_sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Spawn(object? state)
    {
        var s = (ShortThreadsState)state!;
        var batch = new List<Thread>(Concurrency);
        for (int first = 0; first < Count; first += Concurrency)
        {
            batch.Clear();
            for (int k = first; k < Math.Min(first + Concurrency, Count); k++)
            {
                var t = new Thread(Body) { Name = $"short-{k}", IsBackground = false };
                t.Start(s);
                batch.Add(t);
                s.Started++;
            }
            foreach (Thread t in batch) t.Join();
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Body(object? state)
    {
        var s = (ShortThreadsState)state!;
        ulong x = 0x9E3779B97F4A7C15UL;
        for (long i = 0; i < s.BodyIterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        Volatile.Write(ref s_sink, x);
        Interlocked.Increment(ref s.Completed);
        ThreadFacts.Record();
    }
}

public sealed class ShortThreadsState(long bodyIterations)
{
    public long BodyIterations { get; } = bodyIterations;
    public int Started;
    public int Completed;
}

internal sealed class ShortThreadsScenario(Options o) : Scenario(o)
{
    private ShortThreadsState _state = null!;

    public override string Name => "threads";

    protected override void OnStart()
    {
        _state = new ShortThreadsState(Calibration.IterationsFor(ShortThreads.BodyMs));
        StartThread("short-spawner", ShortThreads.Spawn, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["started"] = _state.Started,
        ["completed"] = _state.Completed,
        ["concurrency"] = ShortThreads.Concurrency,
        ["bodyIterations"] = _state.BodyIterations,
    };
}
