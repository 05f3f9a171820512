using System.Runtime.CompilerServices;

namespace Clrscope.Targets.GcLoad;

/// <summary>
/// Short-lived threads "short-N" (start a round's M threads, then join them all) and K long-lived threads
/// "live-N" that block on a WaitHandle until the program ends. No Monitor is used here, so none of this
/// adds to Monitor.LockContentionCount.
/// </summary>
public static class ThreadWork
{
    public const int BodyIterations = 200_000;

    public static long ShortStarted, ShortCompleted;
    public static long LiveStarted, LiveRunning, LiveCompleted;
    private static long nextShortId;
    private static readonly ManualResetEvent LiveRelease = new(false);
    private static readonly List<Thread> Live = [];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void RunShort(int count)
    {
        var threads = new Thread[count];
        for (int i = 0; i < count; i++)
        {
            threads[i] = new Thread(ShortBody) { Name = $"short-{nextShortId++}", IsBackground = false };
            threads[i].Start();
            ShortStarted++;
        }
        foreach (Thread t in threads) t.Join();
    }

    /// <summary>Body of "short-N": a fixed amount of integer work (well under a millisecond), then exit.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void ShortBody()
    {
        ulong x = 88172645463325252UL;
        for (int i = 0; i < BodyIterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        if (x == 0) Console.Error.WriteLine("GcLoad: impossible"); // keeps the loop alive
        Interlocked.Increment(ref ShortCompleted);
    }

    /// <summary>Starts "live-0" … "live-{K-1}" and returns once all of them are running.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void StartLive(int count)
    {
        for (int i = 0; i < count; i++)
        {
            var t = new Thread(LiveBody) { Name = $"live-{i}", IsBackground = true };
            t.Start();
            Live.Add(t);
            LiveStarted++;
        }
        var spin = new SpinWait();
        while (Volatile.Read(ref LiveRunning) < count) spin.SpinOnce();
    }

    /// <summary>Body of "live-N": waits for the end of the program.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void LiveBody()
    {
        Interlocked.Increment(ref LiveRunning);
        LiveRelease.WaitOne();
        Interlocked.Increment(ref LiveCompleted);
    }

    public static int LiveAlive() => Live.Count(t => t.IsAlive);

    /// <summary>Lets the live threads finish and joins them (after RESULT is printed).</summary>
    public static void StopLive()
    {
        LiveRelease.Set();
        foreach (Thread t in Live) t.Join();
    }

    /// <summary>OS threads of the process (/proc/self/task), every runtime and profiler thread included.</summary>
    public static int OsThreadCount()
    {
        try
        {
            return Directory.GetDirectories("/proc/self/task").Length;
        }
        catch (IOException)
        {
            return -1;
        }
        catch (UnauthorizedAccessException)
        {
            return -1;
        }
    }
}
