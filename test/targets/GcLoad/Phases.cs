using System.Diagnostics;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.GcLoad;

/// <summary>What the runtime's counters did during each phase of the workload, summed over rounds.</summary>
public static class Phases
{
    private sealed class Totals
    {
        public TimeSpan Wall, Pause;
        public readonly long[] Gcs = new long[3];
        public long AllocatedBytes, LockContentions, FirstChanceExceptions;
    }

    private static readonly Dictionary<string, Totals> ByName = [];
    private static readonly List<string> Order = [];

    public static void Run(string name, Action phase)
    {
        if (!ByName.TryGetValue(name, out Totals? t))
        {
            ByName[name] = t = new Totals();
            Order.Add(name);
        }
        int c0 = GC.CollectionCount(0), c1 = GC.CollectionCount(1), c2 = GC.CollectionCount(2);
        long contentions = Monitor.LockContentionCount;
        long firstChance = Interlocked.Read(ref ExceptionWork.FirstChance);
        TimeSpan pause = GC.GetTotalPauseDuration();
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        long t0 = Stopwatch.GetTimestamp();
        phase();
        t.Wall += Stopwatch.GetElapsedTime(t0);
        t.AllocatedBytes += GC.GetTotalAllocatedBytes(precise: true) - allocated;
        t.Pause += GC.GetTotalPauseDuration() - pause;
        t.FirstChanceExceptions += Interlocked.Read(ref ExceptionWork.FirstChance) - firstChance;
        t.LockContentions += Monitor.LockContentionCount - contentions;
        t.Gcs[0] += GC.CollectionCount(0) - c0;
        t.Gcs[1] += GC.CollectionCount(1) - c1;
        t.Gcs[2] += GC.CollectionCount(2) - c2;
    }

    public static long LockContentions(string name) => ByName.TryGetValue(name, out Totals? t) ? t.LockContentions : 0;

    public static JsonObject ToJson()
    {
        var o = new JsonObject();
        foreach (string name in Order)
        {
            Totals t = ByName[name];
            o[name] = new JsonObject
            {
                ["wallMs"] = t.Wall.TotalMilliseconds,
                ["gcCollectionCount"] = new JsonArray(t.Gcs.Select(v => (JsonNode?)JsonValue.Create(v)).ToArray()),
                ["pauseMs"] = t.Pause.TotalMilliseconds,
                ["allocatedBytes"] = t.AllocatedBytes,
                ["lockContentions"] = t.LockContentions,
                ["firstChanceExceptions"] = t.FirstChanceExceptions,
            };
        }
        return o;
    }
}
