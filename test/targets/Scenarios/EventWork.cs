using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// throw-mix: thread "throw-mix" runs ThrowMix.Run, which throws, each caught in Run:
/// --exceptions × 3 ArgumentException from ThrowMix.Argument, × 2 KeyNotFoundException from
/// ThrowMix.KeyNotFound, × 1 TargetFault&lt;int&gt; from ThrowMix.Generic (interleaved), in rounds
/// i = 0 .. --exceptions − 1. Their messages (the _message field a profiler reads): always
/// "clrscope test" for ArgumentException (a fixed text), "key {i}" for KeyNotFoundException (two of
/// each i: a text that varies), none for TargetFault (made without one: _message stays null and
/// Message builds "Exception of type '…' was thrown." when read). With --throw-on-stdin the thread
/// waits for a line on stdin before it throws (an attached profiler sees every exception).
/// </summary>
public static class ThrowMix
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object? state)
    {
        var s = (ThrowMixState)state!;
        if (s.WaitForStdin) Console.In.ReadLine();
        for (int i = 0; i < s.Unit; i++)
        {
            for (int k = 0; k < 3; k++) try { Argument(i); } catch (ArgumentException) { s.Argument++; }
            for (int k = 0; k < 2; k++) try { KeyNotFound(i); } catch (KeyNotFoundException) { s.KeyNotFound++; }
            try { Generic(i); } catch (TargetFault<int>) { s.Generic++; }
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Argument(int i) => throw new ArgumentException("clrscope test", nameof(i));

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void KeyNotFound(int i) => throw new KeyNotFoundException($"key {i}");

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Generic(int i) => throw new TargetFault<int>(i);
}

public sealed class TargetFault<T>(T value) : Exception
{
    public T Value { get; } = value;
}

public sealed class ThrowMixState(int unit, bool waitForStdin)
{
    public int Unit { get; } = unit;
    public bool WaitForStdin { get; } = waitForStdin;
    public int Argument, KeyNotFound, Generic;
}

internal sealed class ThrowMixScenario(Options o) : Scenario(o)
{
    private ThrowMixState _state = null!;
    public override string Name => "throw-mix";

    protected override void OnStart()
    {
        _state = new ThrowMixState(Options.Exceptions, Options.ThrowOnStdin);
        StartThread("throw-mix", ThrowMix.Run, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["System.ArgumentException"] = _state.Argument,
        ["System.Collections.Generic.KeyNotFoundException"] = _state.KeyNotFound,
        ["Clrscope.Targets.Scenarios.TargetFault<System.Int32>"] = _state.Generic,
    };
}

/// <summary>
/// lock-wait: thread "lock-wait-holder" takes a monitor in LockWait.Hold and keeps it for
/// --seconds / 4, four rounds; in each round threads "lock-wait-1..3", started once it is held,
/// block in LockWait.Wait on the same lock (each releases it at once). Facts: the total time the
/// waiters spent in lock(), by their own clocks.
/// </summary>
public static class LockWait
{
    private static readonly object s_gate = new();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Hold(object? state)
    {
        var s = (LockWaitState)state!;
        for (int round = 0; round < LockWaitState.Rounds; round++)
        {
            var waiters = new List<Thread>();
            lock (s_gate)
            {
                for (int i = 1; i <= LockWaitState.Waiters; i++)
                {
                    var t = new Thread(Wait) { Name = $"lock-wait-{i}", IsBackground = false };
                    t.Start(s);
                    waiters.Add(t);
                }
                // Every waiter is blocked in the lock before the hold time starts to count down.
                while (Volatile.Read(ref s.Arrived) < (round + 1) * LockWaitState.Waiters) Thread.Sleep(1);
                Thread.Sleep(s.Hold);
            }
            foreach (Thread t in waiters) t.Join();
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Wait(object? state)
    {
        var s = (LockWaitState)state!;
        long start = Stopwatch.GetTimestamp();
        Interlocked.Increment(ref s.Arrived);
        lock (s_gate)
        {
            Interlocked.Add(ref s.WaitedTicks, Stopwatch.GetTimestamp() - start);
        }
    }
}

public sealed class LockWaitState(TimeSpan hold)
{
    public const int Rounds = 4;
    public const int Waiters = 3;
    public TimeSpan Hold { get; } = hold;
    public int Arrived;
    public long WaitedTicks;
}

internal sealed class LockWaitScenario(Options o) : Scenario(o)
{
    private LockWaitState _state = null!;
    public override string Name => "lock-wait";

    protected override void OnStart()
    {
        _state = new LockWaitState(Options.Duration / LockWaitState.Rounds);
        StartThread("lock-wait-holder", LockWait.Hold, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["waits"] = LockWaitState.Rounds * LockWaitState.Waiters,
        ["waitedMs"] = Ms(_state.WaitedTicks),
    };
}

/// <summary>
/// alloc-ratio: thread "alloc-ratio" alternates AllocRatio.Big (one byte[] of 500-1500 bytes) and
/// AllocRatio.Small (6-16 Pair&lt;long&gt;, 11 on average) until Small has allocated --allocate-mb / 4 MB;
/// the bytes each method allocated are measured with GC.GetAllocatedBytesForCurrentThread around it
/// (about 3:1). The sizes and counts vary from a fixed-seed generator because a strictly periodic
/// pattern phase-locks with the GC's allocation quantum: .NET 8/9's AllocationTick then keeps
/// charging the same one of the two methods (13% too much for Small in one run), a bias of the
/// workload that real programs, whose allocations do not repeat to the byte, do not have.
/// </summary>
public static class AllocRatio
{
    private static readonly object?[] s_keep = new object?[64];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object? state)
    {
        var s = (AllocRatioState)state!;
        int i = 0;
        uint x = 0x9E3779B9;
        while (s.SmallBytes < s.SmallTarget)
        {
            // xorshift32: cheap, allocation-free, the same sequence every run.
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            long a = GC.GetAllocatedBytesForCurrentThread();
            Big(i, 500 + (int)(x % 1001));
            long b = GC.GetAllocatedBytesForCurrentThread();
            Small(i, 6 + (int)((x >> 10) % 11));
            long c = GC.GetAllocatedBytesForCurrentThread();
            s.BigBytes += b - a;
            s.SmallBytes += c - b;
            i++;
        }
        s.Iterations = i;
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Big(int i, int length) => s_keep[i & 63] = new byte[length];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Small(int i, int count)
    {
        for (int k = 0; k < count; k++) s_keep[(i + k) & 63] = new Pair<long>(i, k);
    }
}

public sealed class Pair<T>(T first, T second)
{
    public T First { get; } = first;
    public T Second { get; } = second;
}

public sealed class AllocRatioState(long smallTarget)
{
    public long SmallTarget { get; } = smallTarget;
    public long BigBytes, SmallBytes;
    public int Iterations;
}

internal sealed class AllocRatioScenario(Options o) : Scenario(o)
{
    private AllocRatioState _state = null!;
    public override string Name => "alloc-ratio";

    protected override void OnStart()
    {
        _state = new AllocRatioState(Options.AllocateMb * 1024L * 1024L / 4);
        StartThread("alloc-ratio", AllocRatio.Run, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["bigBytes"] = _state.BigBytes,
        ["smallBytes"] = _state.SmallBytes,
        ["iterations"] = _state.Iterations,
        ["bigType"] = "System.Byte[]",
        ["smallType"] = "Clrscope.Targets.Scenarios.Pair<System.Int64>",
    };
}

/// <summary>
/// lock-churn: threads "lock-churn-1..4" each take one shared monitor --exceptions × 1000 times
/// around a short computation (LockChurn.Run), so they contend all the time; the elapsed time is
/// the benchmark's measure (scripts/bench/events-overhead.mjs).
/// </summary>
public static class LockChurn
{
    private static readonly object s_gate = new();
    private static long s_total;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object? state)
    {
        int n = (int)state!;
        for (int i = 0; i < n; i++)
        {
            lock (s_gate)
            {
                long x = s_total;
                for (int k = 0; k < 50; k++) x = x * 31 + k;
                s_total = x;
            }
        }
        ThreadFacts.Record();
    }
}

internal sealed class LockChurnScenario(Options o) : Scenario(o)
{
    public override string Name => "lock-churn";

    protected override void OnStart()
    {
        for (int i = 1; i <= 4; i++) StartThread($"lock-churn-{i}", LockChurn.Run, Options.Exceptions * 1000);
    }

    protected override JsonObject Facts() => new() { ["threads"] = 4 };
}
