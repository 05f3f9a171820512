using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// Ground truth about the named threads, reported in the RESULT line under "threads":
/// the OS thread id (gettid) and the CPU time the thread used (CLOCK_THREAD_CPUTIME_ID).
/// Each named thread calls <see cref="Record"/> once, at the end of its work.
/// </summary>
internal static class ThreadFacts
{
    private static readonly ConcurrentDictionary<string, (int Tid, double CpuMs, long EndTimestamp)> s_facts = new(StringComparer.Ordinal);

    public static void Record()
    {
        string name = Thread.CurrentThread.Name ?? $"managed-{Environment.CurrentManagedThreadId}";
        s_facts[name] = (Native.GetTid(), Native.ThreadCpuMs(), Stopwatch.GetTimestamp());
    }

    public static double CpuMsOf(string name) => s_facts.TryGetValue(name, out var f) ? f.CpuMs : double.NaN;

    /// <summary>Stopwatch timestamp at which the named thread called <see cref="Record"/>, or null.</summary>
    public static long? EndTimestampOf(string name) => s_facts.TryGetValue(name, out var f) ? f.EndTimestamp : null;

    public static JsonObject ToJson()
    {
        var o = new JsonObject();
        foreach (var kv in s_facts.OrderBy(kv => kv.Key, StringComparer.Ordinal))
            o[kv.Key] = new JsonObject { ["tid"] = kv.Value.Tid, ["cpuMs"] = Math.Round(kv.Value.CpuMs, 1) };
        return o;
    }
}

/// <summary>
/// OS calls used for ground-truth facts (not part of any scenario's profile): libc on Linux, kernel32 on Windows
/// (the win-x64 publish that the Wine tests run).
/// </summary>
internal static class Native
{
    private const int ClockThreadCpuTimeId = 3; // CLOCK_THREAD_CPUTIME_ID on Linux

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [DllImport("libc", EntryPoint = "gettid")]
    private static extern int LinuxGetTid();

    [DllImport("libc", EntryPoint = "clock_gettime")]
    private static extern int ClockGetTime(int clockId, out Timespec ts);

    [DllImport("kernel32", EntryPoint = "GetCurrentThreadId")]
    private static extern int WindowsGetCurrentThreadId();

    [DllImport("kernel32", EntryPoint = "GetCurrentThread")]
    private static extern IntPtr WindowsGetCurrentThread();

    // FILETIMEs as 100 ns counts.
    [DllImport("kernel32", EntryPoint = "GetThreadTimes")]
    private static extern int WindowsGetThreadTimes(IntPtr thread, out long creation, out long exit, out long kernel, out long user);

    public static int GetTid() => OperatingSystem.IsWindows() ? WindowsGetCurrentThreadId() : LinuxGetTid();

    /// <summary>CPU time used so far by the calling thread, in milliseconds.</summary>
    public static double ThreadCpuMs()
    {
        if (OperatingSystem.IsWindows())
        {
            return WindowsGetThreadTimes(WindowsGetCurrentThread(), out _, out _, out long kernel, out long user) != 0
                ? (kernel + user) / 1e4
                : double.NaN;
        }
        return ClockGetTime(ClockThreadCpuTimeId, out Timespec ts) == 0 ? ts.Seconds * 1000.0 + ts.Nanoseconds / 1e6 : double.NaN;
    }
}
