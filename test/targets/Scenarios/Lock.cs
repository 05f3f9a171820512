using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// lock: thread "lock-holder" holds a monitor (LockWork.Hold, sleeping inside) for --seconds;
/// threads "lock-waiter-1..3" are started once it is held and block in LockWork.Wait on lock(obj),
/// all under the same call path.
/// </summary>
public static class LockWork
{
    private static readonly object s_gate = new();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Hold(object? state)
    {
        var s = (LockState)state!;
        lock (s_gate)
        {
            long start = Stopwatch.GetTimestamp();
            s.Held.Set();
            while (true)
            {
                TimeSpan remaining = s.Duration - Stopwatch.GetElapsedTime(start);
                if (remaining <= TimeSpan.Zero) break;
                Thread.Sleep(remaining.TotalMilliseconds < 50 ? remaining : TimeSpan.FromMilliseconds(50));
            }
            s.HeldTicks = Stopwatch.GetTimestamp() - start;
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Wait(object? state)
    {
        var slot = (LockWaiter)state!;
        long start = Stopwatch.GetTimestamp();
        lock (s_gate)
        {
            slot.WaitedTicks = Stopwatch.GetTimestamp() - start;
            slot.Order = Interlocked.Increment(ref slot.State.Acquired);
        }
        ThreadFacts.Record();
    }
}

public sealed class LockState(TimeSpan duration)
{
    public TimeSpan Duration { get; } = duration;
    public ManualResetEventSlim Held { get; } = new(false);
    public long HeldTicks;
    public int Acquired;
}

public sealed class LockWaiter(LockState state, string name)
{
    public LockState State { get; } = state;
    public string Name { get; } = name;
    public long WaitedTicks;
    public int Order;
}

internal sealed class LockScenario(Options o) : Scenario(o)
{
    public const int Waiters = 3;
    private LockState _state = null!;
    private readonly List<LockWaiter> _waiters = [];

    public override string Name => "lock";

    protected override void OnStart()
    {
        _state = new LockState(Options.Duration);
        StartThread("lock-holder", LockWork.Hold, _state);
        _state.Held.Wait();
        for (int i = 1; i <= Waiters; i++)
        {
            var w = new LockWaiter(_state, $"lock-waiter-{i}");
            _waiters.Add(w);
            StartThread(w.Name, LockWork.Wait, w);
        }
    }

    protected override JsonObject Facts()
    {
        var waited = new JsonObject();
        foreach (LockWaiter w in _waiters) waited[w.Name] = Ms(w.WaitedTicks);
        return new JsonObject
        {
            ["waiters"] = _waiters.Count,
            ["acquired"] = _state.Acquired,
            ["heldMs"] = Ms(_state.HeldTicks),
            ["waitedMs"] = waited,
        };
    }
}
