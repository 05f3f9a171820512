using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Clrscope.Targets.GcLoad;

/// <summary>
/// Induced collections (GC.Collect, forced and blocking) and the allocation phase. All totals are summed
/// over rounds; only the main thread calls in here.
/// </summary>
public static class GcWork
{
    /// <summary>byte[1000] is 1024 bytes on the 64-bit heap: 8 header + 8 method table + 8 length (padded) + 1000.</summary>
    public const int ObjectPayload = 1000;
    public const int ObjectSize = 1024;
    /// <summary>Every 64th object survives in a ring of 64 slots: 64 KB live at steady state, and each survivor lives
    /// for the next 4 MB of allocation; the rest die at once. On a 2-core machine with a 105 MB L3 cache this gives
    /// one natural GC per ~52 MB, about one in five of them gen1.</summary>
    public const int SurvivorEvery = 64;
    public const int SurvivorSlots = 64;

    // Kept for the whole run: the survivors are still referenced at the final induced gen2.
    private static readonly byte[]?[] Survivors = new byte[SurvivorSlots][];
    private static long survivorCursor;
    /// <summary>Non-survivors are stored here so no allocation can be elided or stack-allocated by the JIT.</summary>
    public static byte[]? Sink;

    /// <summary>Calls made per generation (what the program asked for).</summary>
    public static readonly long[] InducedCalls = new long[3];
    /// <summary>[requested generation, outcome]: outcome 0 = no GC seen, 1/2/3 = the oldest generation whose
    /// GC.CollectionCount rose during the call was gen0/gen1/gen2.</summary>
    public static readonly long[,] InducedOutcome = new long[3, 4];
    /// <summary>Per requested generation: sum of the GC.CollectionCount(0) rise over its calls (number of GCs seen).</summary>
    public static readonly long[] InducedGcsSeen = new long[3];
    /// <summary>Per requested generation: wall time of the GC.Collect calls, and the rise of GC.GetTotalPauseDuration over them.</summary>
    /// <summary>The first 50 calls whose GC was not exactly one GC of the requested generation:
    /// (requested generation, call number counted from 0 over the whole run, GCs seen, oldest generation seen).</summary>
    public static readonly List<(int Requested, long Call, int Gcs, int Oldest)> InducedSurprises = [];
    public static readonly TimeSpan[] InducedCallTime = new TimeSpan[3];
    /// <summary>Per GC.Collect call in order, the first 10000: GCs seen and the rise of GC.GetTotalPauseDuration
    /// over the call (one pause's length when it saw one GC, to compare pause by pause).</summary>
    public static readonly List<(int Gcs, double PauseMs)> InducedCallLog = [];
    public static readonly TimeSpan[] InducedPause = new TimeSpan[3];

    public static long AllocatedObjects;
    public static long AllocatedSurvivors;
    /// <summary>Rise of GC.GetTotalAllocatedBytes(precise: true) over the allocation loops.</summary>
    public static long AllocationMeasuredBytes;
    /// <summary>Rise of GC.CollectionCount(0/1/2) during the allocation loops (natural GCs).</summary>
    public static readonly long[] AllocationGcs = new long[3];
    public static TimeSpan AllocationPause;

    /// <summary>GC.Collect(generation, Forced, blocking: true), <paramref name="count"/> times, one at a time.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Induce(int generation, int count)
    {
        for (int i = 0; i < count; i++)
        {
            int c0 = GC.CollectionCount(0), c1 = GC.CollectionCount(1), c2 = GC.CollectionCount(2);
            TimeSpan p0 = GC.GetTotalPauseDuration();
            long t0 = Stopwatch.GetTimestamp();
            GC.Collect(generation, GCCollectionMode.Forced, blocking: true);
            TimeSpan call = Stopwatch.GetElapsedTime(t0);
            TimeSpan p1 = GC.GetTotalPauseDuration();
            int d0 = GC.CollectionCount(0) - c0, d1 = GC.CollectionCount(1) - c1, d2 = GC.CollectionCount(2) - c2;

            int outcome = d2 > 0 ? 3 : d1 > 0 ? 2 : d0 > 0 ? 1 : 0;
            if ((d0 != 1 || outcome != generation + 1) && InducedSurprises.Count < 50)
                InducedSurprises.Add((generation, InducedCalls[generation], d0, outcome - 1));
            InducedCalls[generation]++;
            InducedOutcome[generation, outcome]++;
            InducedGcsSeen[generation] += d0;
            InducedCallTime[generation] += call;
            InducedPause[generation] += p1 - p0;
            if (InducedCallLog.Count < 10000) InducedCallLog.Add((d0, (p1 - p0).TotalMilliseconds));
        }
    }

    /// <summary>Background gen2 collections induced and seen to finish.</summary>
    public static long BackgroundSeen;

    /// <summary>
    /// <paramref name="count"/> background gen2 collections, one at a time: whether churn alone starts one
    /// depends on the GC's budgets (on one machine 600 MB of churn did, on another it did not). A
    /// non-blocking induced gen2 runs in the background while concurrent GC is on (the default); each is
    /// waited for until the runtime's last background collection is a new one.
    /// </summary>
    public static void InduceBackground(int count)
    {
        for (int i = 0; i < count; i++)
        {
            long before = GC.GetGCMemoryInfo(GCKind.Background).Index;
            GC.Collect(2, GCCollectionMode.Forced, blocking: false);
            long until = Stopwatch.GetTimestamp() + Stopwatch.Frequency * 10;
            while (GC.GetGCMemoryInfo(GCKind.Background).Index == before && Stopwatch.GetTimestamp() < until) Thread.Sleep(1);
            if (GC.GetGCMemoryInfo(GCKind.Background).Index != before) BackgroundSeen++;
        }
    }

    /// <summary>Allocates <paramref name="mb"/> MB as 1024-byte arrays (1024 per MB); every 16th one survives in the ring.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Allocate(int mb)
    {
        long n = (long)mb * (1024 * 1024 / ObjectSize);
        int c0 = GC.CollectionCount(0), c1 = GC.CollectionCount(1), c2 = GC.CollectionCount(2);
        TimeSpan p0 = GC.GetTotalPauseDuration();
        long before = GC.GetTotalAllocatedBytes(precise: true);

        long survivors = FillLoop(n);

        long after = GC.GetTotalAllocatedBytes(precise: true);
        AllocationMeasuredBytes += after - before;
        AllocationPause += GC.GetTotalPauseDuration() - p0;
        AllocationGcs[0] += GC.CollectionCount(0) - c0;
        AllocationGcs[1] += GC.CollectionCount(1) - c1;
        AllocationGcs[2] += GC.CollectionCount(2) - c2;
        AllocatedObjects += n;
        AllocatedSurvivors += survivors;
    }

    private const int ChurnObject = 8000;
    private const int ChurnSlots = 64 * 1024 * 1024 / ChurnObject;
    private static readonly byte[]?[] ChurnRing = new byte[ChurnSlots][];
    private static long churnCursor;

    /// <summary>Allocates <paramref name="mb"/> MB of 8000-byte arrays, each replacing the oldest in a 64 MB ring:
    /// every one lives long enough to reach gen 2 and then dies there, so gen 2's budget runs out again and again
    /// and the runtime collects it in the background (with concurrent GC on, the default), while gen 0 and gen 1
    /// collect in between.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Churn(int mb)
    {
        long n = (long)mb * 1024 * 1024 / ChurnObject;
        long cursor = churnCursor;
        for (long i = 0; i < n; i++) ChurnRing[cursor++ % ChurnSlots] = new byte[ChurnObject];
        churnCursor = cursor;
    }

    /// <summary>The allocation loop itself (the frame an allocation sampler should see).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long FillLoop(long n)
    {
        long survivors = 0;
        byte[]?[] ring = Survivors;
        long cursor = survivorCursor;
        for (long i = 0; i < n; i++)
        {
            byte[] o = new byte[ObjectPayload];
            if (i % SurvivorEvery == 0)
            {
                ring[cursor++ % SurvivorSlots] = o;
                survivors++;
            }
            else
            {
                Sink = o;
            }
        }
        survivorCursor = cursor;
        Sink = null;
        return survivors;
    }
}
