using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// pinvoke: thread "pinvoke" runs PInvokeWork.CallNative, which for --seconds repeats:
/// GetPidBatch calls of libc getpid, then one libc usleep(UsleepMicroseconds).
/// </summary>
public static class PInvokeWork
{
    public const int GetPidBatch = 1000;
    public const uint UsleepMicroseconds = 1000;

    [DllImport("libc", EntryPoint = "getpid")]
    private static extern int GetPid();

    [DllImport("libc", EntryPoint = "usleep")]
    private static extern int USleep(uint microseconds);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void CallNative(object? state)
    {
        var s = (PInvokeState)state!;
        int expected = Environment.ProcessId;
        long start = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(start) < s.Duration)
        {
            for (int i = 0; i < GetPidBatch; i++)
            {
                if (GetPid() != expected) s.Mismatches++;
                s.GetPidCalls++;
            }
            USleep(UsleepMicroseconds);
            s.UsleepCalls++;
        }
        ThreadFacts.Record();
    }
}

public sealed class PInvokeState(TimeSpan duration)
{
    public TimeSpan Duration { get; } = duration;
    public long GetPidCalls;
    public long UsleepCalls;
    public long Mismatches;
}

internal sealed class PInvokeScenario(Options o) : Scenario(o)
{
    private PInvokeState _state = null!;

    public override string Name => "pinvoke";

    protected override void OnStart()
    {
        _state = new PInvokeState(Options.Duration);
        StartThread("pinvoke", PInvokeWork.CallNative, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["getpidCalls"] = _state.GetPidCalls,
        ["usleepCalls"] = _state.UsleepCalls,
        ["pidMismatches"] = _state.Mismatches,
    };
}
