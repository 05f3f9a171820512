using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// hardware-faults: exceptions the runtime makes out of processor faults, caught in loops on four
/// threads, --exceptions times each (default 1000): "nre-0" and "nre-1" dereference a null object
/// (SIGSEGV, NullReferenceException), "unmapped" reads an unmapped low address through a pointer
/// (SIGSEGV, NullReferenceException) and "divide" divides an integer by zero (SIGFPE,
/// DivideByZeroException). The runtime's SIGSEGV handler starts on the thread's alternate signal
/// stack and finishes on the thread's own stack, which is the window a profiler's signal must
/// not write over.
/// </summary>
public static class HardwareFaultWork
{
    private static object? s_nothing = null;
    private static int s_zero = 0;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int NullDereference(int i)
    {
        object? o = i < 0 ? new object() : s_nothing;
        return o!.GetHashCode();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static unsafe int UnmappedRead(int i)
    {
        // The first page is never mapped, and the runtime reports a fault inside it in managed code
        // as a NullReferenceException (further up it is an AccessViolationException, which ends
        // the process).
        int* p = (int*)(0x100 + (i % 0x100) * 8);
        return *p;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Divide(int i) => i / s_zero;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Nre(object? state)
    {
        var s = (FaultCount)state!;
        for (int i = 0; i < s.Count; i++)
        {
            try { NullDereference(i); } catch (NullReferenceException) { s.Caught++; }
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Unmapped(object? state)
    {
        var s = (FaultCount)state!;
        for (int i = 0; i < s.Count; i++)
        {
            try { UnmappedRead(i); } catch (NullReferenceException) { s.Caught++; } catch (AccessViolationException) { s.Caught++; }
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Divider(object? state)
    {
        var s = (FaultCount)state!;
        for (int i = 0; i < s.Count; i++)
        {
            try { Divide(i); } catch (DivideByZeroException) { s.Caught++; }
        }
        ThreadFacts.Record();
    }
}

public sealed class FaultCount(int count)
{
    public int Count { get; } = count;
    public int Caught;
}

internal sealed class HardwareFaultsScenario(Options o) : Scenario(o)
{
    private readonly Dictionary<string, FaultCount> _counts = [];

    public override string Name => "hardware-faults";

    protected override void OnStart()
    {
        Start("nre-0", HardwareFaultWork.Nre);
        Start("nre-1", HardwareFaultWork.Nre);
        Start("unmapped", HardwareFaultWork.Unmapped);
        Start("divide", HardwareFaultWork.Divider);
    }

    private void Start(string name, ParameterizedThreadStart body)
    {
        var c = new FaultCount(Options.Exceptions);
        _counts[name] = c;
        StartThread(name, body, c);
    }

    protected override JsonObject Facts()
    {
        var caught = new JsonObject();
        foreach ((string name, FaultCount c) in _counts) caught[name] = c.Caught;
        return new JsonObject { ["each"] = Options.Exceptions, ["caught"] = caught };
    }
}
