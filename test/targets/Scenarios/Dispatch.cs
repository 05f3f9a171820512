using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// dispatch: thread "interface-dispatch-worker-with-a-long-name" (longer than the 15 bytes Linux keeps of a
/// thread's name) runs DispatchWork.Spin for --seconds: interface calls on eight implementations in turn, a call
/// site the runtime's virtual stub dispatch resolves through its resolve stubs, with a libc getpid P/Invoke
/// every 1024 calls (an IL stub). A LongRunning task (the runtime names its thread ".NET Long Running Task") does
/// the same for half the time. RESULT: the calls made and both threads' names as the program sees them.
/// </summary>
public static class DispatchWork
{
    public const string ThreadName = "interface-dispatch-worker-with-a-long-name";

    public interface IShape { long Area(long x); }
    private sealed class A : IShape { public long Area(long x) => x + 1; }
    private sealed class B : IShape { public long Area(long x) => x + 2; }
    private sealed class C : IShape { public long Area(long x) => x ^ 3; }
    private sealed class D : IShape { public long Area(long x) => x - 4; }
    private sealed class E : IShape { public long Area(long x) => x * 5; }
    private sealed class F : IShape { public long Area(long x) => x | 6; }
    private sealed class G : IShape { public long Area(long x) => x & 7; }
    private sealed class H : IShape { public long Area(long x) => x + 8; }

    private static readonly IShape[] s_shapes = [new A(), new B(), new C(), new D(), new E(), new F(), new G(), new H()];

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "getpid")]
    private static extern int GetPid();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Spin(TimeSpan duration)
    {
        long calls = 0, sum = 0;
        long start = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(start) < duration)
        {
            for (int i = 0; i < 4096; i++)
            {
                sum += s_shapes[i & 7].Area(i);
                if ((i & 1023) == 0) sum += GetPid();
            }
            calls += 4096;
        }
        GC.KeepAlive(sum);
        return calls;
    }
}

internal sealed class DispatchScenario(Options o) : Scenario(o)
{
    private long _calls;
    private string? _longRunningName;
    private Task? _longRunning;

    public override string Name => "dispatch";

    protected override void OnStart()
    {
        TimeSpan d = Options.Duration;
        _longRunning = Task.Factory.StartNew(() =>
        {
            _longRunningName = Thread.CurrentThread.Name;
            DispatchWork.Spin(d / 2);
        }, TaskCreationOptions.LongRunning);
        StartThread(DispatchWork.ThreadName, _ =>
        {
            _calls = DispatchWork.Spin(d);
            ThreadFacts.Record();
        }, null);
    }

    protected override JsonObject Facts()
    {
        _longRunning?.Wait();
        return new()
        {
            ["calls"] = _calls,
            ["threadName"] = DispatchWork.ThreadName,
            ["longRunningThreadName"] = _longRunningName,
        };
    }
}
