using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// live-heap: thread "live-heap" runs LiveHeapGrowth.Run, which allocates --allocate-mb MB in all,
/// each object by a coin flip (a seeded PRNG, so no allocation pattern lines up with a sampler's
/// stride): a Retained (LiveHeapGrowth.Keep) added to a list that lives to the end, or a Transient
/// (LiveHeapGrowth.Churn) dropped at once. Then the last Transient is let go and GC.Collect() runs,
/// so after that GC every Retained is alive and no Transient is. Facts: objects and bytes of each
/// type (bytes = count × the type's size, measured with the thread's allocation counter), and
/// GC.GetTotalMemory after that collection.
/// </summary>
public static class LiveHeapGrowth
{
    private static readonly List<Retained> s_kept = [];
    private static Transient? s_last;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object? state)
    {
        var s = (LiveHeapState)state!;
        s.RetainedSize = SizeOf(() => new Retained(0));
        s.TransientSize = SizeOf(() => new Transient(0));
        var rng = new Random(12345);
        long allocated = 0;
        for (long i = 0; allocated < s.TargetBytes; i++)
        {
            if (rng.Next(2) == 0)
            {
                Keep(i);
                s.RetainedObjects++;
                allocated += s.RetainedSize;
            }
            else
            {
                Churn(i);
                s.TransientObjects++;
                allocated += s.TransientSize;
            }
        }
        s_last = null;
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        s.TotalMemoryAfterGc = GC.GetTotalMemory(false);
        s.ListCount = s_kept.Count;
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Keep(long i) => s_kept.Add(new Retained(i));

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Churn(long i) => s_last = new Transient(i);

    private static long SizeOf(Func<object> make)
    {
        var keep = new object[1000];
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < keep.Length; i++) keep[i] = make();
        long after = GC.GetAllocatedBytesForCurrentThread();
        GC.KeepAlive(keep);
        return (after - before) / keep.Length;
    }
}

public sealed class Retained(long v)
{
    public long A = v, B = v + 1, C = v + 2, D = v + 3, E = v + 4, F = v + 5;
}

public sealed class Transient(long v)
{
    public long A = v, B = v + 1, C = v + 2, D = v + 3, E = v + 4, F = v + 5, G = v + 6, H = v + 7, I = v + 8, J = v + 9;
}

public sealed class LiveHeapState(long targetBytes)
{
    public long TargetBytes { get; } = targetBytes;
    public long RetainedSize, TransientSize, RetainedObjects, TransientObjects, TotalMemoryAfterGc;
    public int ListCount;
}

internal sealed class LiveHeapScenario(Options o) : Scenario(o)
{
    private LiveHeapState _state = null!;
    public override string Name => "live-heap";

    protected override void OnStart()
    {
        _state = new LiveHeapState(Options.AllocateMb * 1024L * 1024L);
        StartThread("live-heap", LiveHeapGrowth.Run, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["retainedType"] = "Clrscope.Targets.Scenarios.Retained",
        ["transientType"] = "Clrscope.Targets.Scenarios.Transient",
        ["retainedObjects"] = _state.RetainedObjects,
        ["retainedBytes"] = _state.RetainedObjects * _state.RetainedSize,
        ["retainedSize"] = _state.RetainedSize,
        ["transientObjects"] = _state.TransientObjects,
        ["transientBytes"] = _state.TransientObjects * _state.TransientSize,
        ["transientSize"] = _state.TransientSize,
        ["listCount"] = _state.ListCount,
        ["totalMemoryAfterGc"] = _state.TotalMemoryAfterGc,
    };
}
