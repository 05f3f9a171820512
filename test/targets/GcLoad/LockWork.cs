using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Clrscope.Targets.GcLoad;

/// <summary>
/// N contended Monitor.Enter calls between two threads, "lock-holder" and "lock-waiter", in lock step:
/// <list type="number">
/// <item>the holder takes the lock and announces iteration i;</item>
/// <item>the waiter tries <c>Monitor.TryEnter(gate)</c> (no wait), which fails, counts "had to wait",
///   announces that, and calls <c>Monitor.Enter(gate)</c> (<see cref="Wait"/>);</item>
/// <item>the holder keeps the lock until the runtime's <c>Monitor.LockContentionCount</c> has risen, i.e. the
///   waiter gave up spinning and blocked (or until a 2 s timeout), then releases it;</item>
/// <item>the waiter gets the lock, releases it and announces the end of iteration i.</item>
/// </list>
/// The handshakes use volatile fields, never a Monitor, so while both threads run their loops the only Monitor
/// contention in the process is the waiter's Enter. (Monitor.TryEnter with no timeout does not count as contention.)
/// </summary>
public static class LockWork
{
    public static readonly TimeSpan HoldTimeout = TimeSpan.FromSeconds(2);

    private static readonly object Gate = new();
    private static int held, tried, done, ready, finished;
    private static bool go;

    public static long Requested, HadToWait, AcquiredAfterWait, TryEnterSucceeded, HolderSawRise, HolderTimeouts;
    public static long ThreadsStarted;
    /// <summary>Rise of Monitor.LockContentionCount while both threads ran their loops (thread start/exit excluded).</summary>
    public static long WindowContentions;
    public static TimeSpan Held;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(int count)
    {
        if (count == 0) return;
        held = tried = done = ready = finished = 0;
        go = false;
        var holder = new Thread(() => Hold(count)) { Name = "lock-holder", IsBackground = false };
        var waiter = new Thread(() => Wait(count)) { Name = "lock-waiter", IsBackground = false };
        holder.Start();
        waiter.Start();
        ThreadsStarted += 2;
        // A starting thread itself often contends with Thread.Start (on its Thread object), so the window
        // measured here opens only once both threads run and closes before they exit.
        SpinUntil(ref ready, 2);
        long before = Monitor.LockContentionCount;
        Volatile.Write(ref go, true);
        SpinUntil(ref finished, 2);
        WindowContentions += Monitor.LockContentionCount - before;
        holder.Join();
        waiter.Join();
        Requested += count;
    }

    private static void Begin()
    {
        Interlocked.Increment(ref ready);
        var spin = new SpinWait();
        while (!Volatile.Read(ref go)) spin.SpinOnce(sleep1Threshold: -1);
    }

    /// <summary>Body of "lock-holder".</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Hold(int count)
    {
        Begin();
        for (int i = 1; i <= count; i++)
        {
            Monitor.Enter(Gate);
            long t0 = Stopwatch.GetTimestamp();
            long before = Monitor.LockContentionCount;
            Volatile.Write(ref held, i);
            SpinUntil(ref tried, i);
            // The waiter failed TryEnter and is on its way into Monitor.Enter. Keep the lock until it has
            // blocked (the runtime counts the contention then), so every iteration is one real contention.
            bool rose = false;
            var spin = new SpinWait();
            while (Stopwatch.GetElapsedTime(t0) < HoldTimeout)
            {
                if (Monitor.LockContentionCount > before)
                {
                    rose = true;
                    break;
                }
                spin.SpinOnce(sleep1Threshold: -1);
            }
            if (rose) HolderSawRise++;
            else HolderTimeouts++;
            Held += Stopwatch.GetElapsedTime(t0);
            Monitor.Exit(Gate);
            SpinUntil(ref done, i);
        }
        Interlocked.Increment(ref finished);
    }

    /// <summary>Body of "lock-waiter".</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Wait(int count)
    {
        Begin();
        for (int i = 1; i <= count; i++)
        {
            SpinUntil(ref held, i);
            if (Monitor.TryEnter(Gate))
            {
                // Cannot happen while the holder keeps the lock; counted so a test would notice.
                TryEnterSucceeded++;
                Volatile.Write(ref tried, i);
                Monitor.Exit(Gate);
            }
            else
            {
                HadToWait++;
                Volatile.Write(ref tried, i);
                EnterContended();
            }
            Volatile.Write(ref done, i);
        }
        Interlocked.Increment(ref finished);
    }

    /// <summary>The contended Monitor.Enter (frame: "lock-waiter" → LockWork.Wait → LockWork.EnterContended → Monitor.Enter).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void EnterContended()
    {
        Monitor.Enter(Gate);
        AcquiredAfterWait++;
        Monitor.Exit(Gate);
    }

    private static void SpinUntil(ref int field, int value)
    {
        var spin = new SpinWait();
        while (Volatile.Read(ref field) < value) spin.SpinOnce(sleep1Threshold: -1);
    }
}
