using System.Runtime;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.GcLoad;

/// <summary>The runtime's own process-wide numbers at one moment.</summary>
public sealed class Counters
{
    public required int[] CollectionCount { get; init; }
    public required double TotalPauseMs { get; init; }
    public required long TotalAllocatedBytes { get; init; }
    public required long LockContentionCount { get; init; }
    public required int AssemblyCount { get; init; }
    public required long JitMethods { get; init; }
    public required long JitILBytes { get; init; }
    public required double JitTimeMs { get; init; }
    public required long FirstChanceExceptions { get; init; }
    public required int ThreadPoolThreads { get; init; }
    public required int OsThreads { get; init; }
    public required long GcIndex { get; init; }

    public static Counters Read() => new()
    {
        CollectionCount = [GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2)],
        TotalPauseMs = GC.GetTotalPauseDuration().TotalMilliseconds,
        TotalAllocatedBytes = GC.GetTotalAllocatedBytes(precise: true),
        LockContentionCount = Monitor.LockContentionCount,
        AssemblyCount = AppDomain.CurrentDomain.GetAssemblies().Length,
        JitMethods = System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: false),
        JitILBytes = System.Runtime.JitInfo.GetCompiledILBytes(currentThread: false),
        JitTimeMs = System.Runtime.JitInfo.GetCompilationTime(currentThread: false).TotalMilliseconds,
        FirstChanceExceptions = Interlocked.Read(ref ExceptionWork.FirstChance),
        ThreadPoolThreads = ThreadPool.ThreadCount,
        OsThreads = ThreadWork.OsThreadCount(),
        GcIndex = GC.GetGCMemoryInfo(GCKind.Any).Index,
    };

    /// <summary>The subset printed in SETTLED and TICK lines.</summary>
    public JsonObject ToJson(Counters atStart) => new()
    {
        ["gcCollectionCount"] = Report.Ints(CollectionCount),
        ["gcIndex"] = GcIndex,
        ["inducedCollections"] = Report.Induced(),
        ["totalPauseDurationMs"] = TotalPauseMs,
        ["totalAllocatedBytes"] = TotalAllocatedBytes,
        ["exceptionsThrown"] = ExceptionWork.Thrown,
        ["firstChanceExceptions"] = FirstChanceExceptions,
        ["lockContentionCount"] = LockContentionCount,
        ["lockContentionDelta"] = LockContentionCount - atStart.LockContentionCount,
        ["assemblyCount"] = AssemblyCount,
        ["threadsStarted"] = ThreadWork.ShortStarted + ThreadWork.LiveStarted + LockWork.ThreadsStarted,
        ["liveThreadsAlive"] = ThreadWork.LiveAlive(),
        ["jitCompiledMethods"] = JitMethods,
    };
}

public static class Report
{
    private static readonly string[] GenerationNames = ["gen0", "gen1", "gen2", "loh", "poh"];

    public static JsonArray Ints(int[] values) => new(values.Select(v => (JsonNode?)JsonValue.Create(v)).ToArray());
    private static JsonArray Longs(IEnumerable<long> values) => new(values.Select(v => (JsonNode?)JsonValue.Create(v)).ToArray());
    private static JsonArray Doubles(IEnumerable<double> values) => new(values.Select(v => (JsonNode?)JsonValue.Create(v)).ToArray());

    public static JsonObject Induced() => new()
    {
        ["gen0"] = GcWork.InducedCalls[0],
        ["gen1"] = GcWork.InducedCalls[1],
        ["gen2"] = GcWork.InducedCalls[2],
        ["backgroundSeen"] = GcWork.BackgroundSeen,
    };

    public static JsonObject Tick(int round, TimeSpan elapsed, TimeSpan roundTime, Counters atStart)
    {
        JsonObject counts = Counters.Read().ToJson(atStart);
        counts["round"] = round;
        counts["elapsedMs"] = Math.Round(elapsed.TotalMilliseconds, 1);
        counts["roundMs"] = Math.Round(roundTime.TotalMilliseconds, 1);
        return counts;
    }

    public static JsonObject GcInfo(GCMemoryInfo info)
    {
        var generations = new JsonArray();
        ReadOnlySpan<GCGenerationInfo> gens = info.GenerationInfo;
        for (int g = 0; g < gens.Length; g++)
        {
            generations.Add(new JsonObject
            {
                ["name"] = g < GenerationNames.Length ? GenerationNames[g] : $"gen{g}",
                ["sizeBeforeBytes"] = gens[g].SizeBeforeBytes,
                ["sizeAfterBytes"] = gens[g].SizeAfterBytes,
                ["fragmentationBeforeBytes"] = gens[g].FragmentationBeforeBytes,
                ["fragmentationAfterBytes"] = gens[g].FragmentationAfterBytes,
            });
        }
        var pauses = new List<double>();
        foreach (TimeSpan p in info.PauseDurations) pauses.Add(p.TotalMilliseconds);
        return new JsonObject
        {
            ["kind"] = "Any",
            ["index"] = info.Index,
            ["generation"] = info.Generation,
            ["compacted"] = info.Compacted,
            ["concurrent"] = info.Concurrent,
            ["pauseDurationsMs"] = Doubles(pauses),
            ["pauseTimePercentage"] = info.PauseTimePercentage,
            ["heapSizeBytes"] = info.HeapSizeBytes,
            ["totalCommittedBytes"] = info.TotalCommittedBytes,
            ["promotedBytes"] = info.PromotedBytes,
            ["pinnedObjectsCount"] = info.PinnedObjectsCount,
            ["finalizationPendingCount"] = info.FinalizationPendingCount,
            ["fragmentedBytes"] = info.FragmentedBytes,
            ["memoryLoadBytes"] = info.MemoryLoadBytes,
            ["highMemoryLoadThresholdBytes"] = info.HighMemoryLoadThresholdBytes,
            ["totalAvailableMemoryBytes"] = info.TotalAvailableMemoryBytes,
            ["generationInfo"] = generations,
        };
    }

    private static JsonObject Diff(Counters a, Counters b)
    {
        // Which of the runtime's numbers moved while the program was idle in --wait-at-end.
        var changed = new JsonObject();
        void Add(string name, double before, double after)
        {
            if (before != after) changed[name] = after - before;
        }
        for (int g = 0; g < 3; g++) Add($"gcCollectionCount{g}", a.CollectionCount[g], b.CollectionCount[g]);
        Add("totalPauseDurationMs", a.TotalPauseMs, b.TotalPauseMs);
        Add("totalAllocatedBytes", a.TotalAllocatedBytes, b.TotalAllocatedBytes);
        Add("lockContentionCount", a.LockContentionCount, b.LockContentionCount);
        Add("assemblyCount", a.AssemblyCount, b.AssemblyCount);
        Add("jitCompiledMethods", a.JitMethods, b.JitMethods);
        Add("jitCompiledILBytes", a.JitILBytes, b.JitILBytes);
        Add("firstChanceExceptions", a.FirstChanceExceptions, b.FirstChanceExceptions);
        Add("threadPoolThreadCount", a.ThreadPoolThreads, b.ThreadPoolThreads);
        Add("osThreads", a.OsThreads, b.OsThreads);
        return changed;
    }

    public static JsonObject Result(Options o, int rounds, Counters atStart, Counters settled, Counters final, double workMs, double elapsedMs)
    {
        var outcome = new JsonObject();
        var gcsSeen = new JsonObject();
        var callMs = new JsonObject();
        var pauseMs = new JsonObject();
        for (int g = 0; g < 3; g++)
        {
            string key = $"gen{g}";
            outcome[key] = new JsonObject
            {
                ["noGc"] = GcWork.InducedOutcome[g, 0],
                ["gen0"] = GcWork.InducedOutcome[g, 1],
                ["gen1"] = GcWork.InducedOutcome[g, 2],
                ["gen2"] = GcWork.InducedOutcome[g, 3],
            };
            gcsSeen[key] = GcWork.InducedGcsSeen[g];
            callMs[key] = GcWork.InducedCallTime[g].TotalMilliseconds;
            pauseMs[key] = GcWork.InducedPause[g].TotalMilliseconds;
        }

        return new JsonObject
        {
            ["program"] = "GcLoad",
            ["pid"] = Environment.ProcessId,
            ["exitCode"] = o.ExitCode,
            ["rounds"] = rounds,
            ["options"] = new JsonObject
            {
                ["gen0"] = o.Gen0, ["gen1"] = o.Gen1, ["gen2"] = o.Gen2, ["allocateMb"] = o.AllocateMb, ["churnMb"] = o.ChurnMb,
                ["exceptions"] = o.Exceptions, ["threads"] = o.Threads, ["liveThreads"] = o.LiveThreads,
                ["lockContention"] = o.LockContention, ["loadAssemblies"] = o.LoadAssemblies,
                ["waitStartMs"] = o.WaitStartMs, ["waitAtEndMs"] = o.WaitAtEndMs,
                ["durationSeconds"] = o.DurationSeconds, ["repeatEveryMs"] = o.DurationSeconds is null ? null : o.RepeatEveryMs,
            },
            ["elapsedMs"] = Math.Round(elapsedMs, 1),
            ["workMs"] = Math.Round(workMs, 1),
            ["processorCount"] = Environment.ProcessorCount,
            ["gcSettings"] = new JsonObject
            {
                ["isServerGC"] = GCSettings.IsServerGC,
                ["latencyMode"] = GCSettings.LatencyMode.ToString(),
                ["concurrent"] = AppContext.GetData("System.GC.Concurrent") is not bool c || c,
            },

            // GC: the runtime's own numbers.
            ["gcCollectionCount"] = Ints(final.CollectionCount),
            ["gcCollectionCountAtStart"] = Ints(atStart.CollectionCount),
            ["inducedCollections"] = Induced(),
            ["inducedOutcome"] = outcome,
            ["inducedGcsSeen"] = gcsSeen,
            ["inducedSurprises"] = new JsonArray(GcWork.InducedSurprises.Select(x => (JsonNode?)new JsonObject
            {
                ["requested"] = x.Requested, ["call"] = x.Call, ["gcs"] = x.Gcs, ["oldestGeneration"] = x.Oldest,
            }).ToArray()),
            ["inducedCallMs"] = callMs,
            ["inducedPauseMs"] = pauseMs,
            ["inducedCalls"] = new JsonArray(GcWork.InducedCallLog.Select(x => (JsonNode?)new JsonObject
            {
                ["gcs"] = x.Gcs, ["pauseMs"] = x.PauseMs,
            }).ToArray()),
            ["totalPauseDurationMs"] = final.TotalPauseMs,
            ["gcInfo"] = GcInfo(GC.GetGCMemoryInfo(GCKind.Any)),
            ["lastGcIndexByKind"] = new JsonObject
            {
                ["ephemeral"] = GC.GetGCMemoryInfo(GCKind.Ephemeral).Index,
                ["fullBlocking"] = GC.GetGCMemoryInfo(GCKind.FullBlocking).Index,
                ["background"] = GC.GetGCMemoryInfo(GCKind.Background).Index,
            },
            ["totalAllocatedBytes"] = final.TotalAllocatedBytes,
            ["allocation"] = new JsonObject
            {
                ["objects"] = GcWork.AllocatedObjects,
                ["objectSize"] = GcWork.ObjectSize,
                ["bytes"] = GcWork.AllocatedObjects * GcWork.ObjectSize,
                ["measuredBytes"] = GcWork.AllocationMeasuredBytes,
                ["survivors"] = GcWork.AllocatedSurvivors,
                ["survivorEvery"] = GcWork.SurvivorEvery,
                ["survivorSlots"] = GcWork.SurvivorSlots,
                ["naturalGcs"] = Longs(GcWork.AllocationGcs),
                ["pauseMs"] = GcWork.AllocationPause.TotalMilliseconds,
            },

            ["exceptions"] = new JsonObject
            {
                ["thrown"] = ExceptionWork.Thrown,
                ["caught"] = ExceptionWork.Caught,
                ["filters"] = ExceptionWork.Filters,
                ["finallys"] = ExceptionWork.Finallys,
                ["firstChance"] = final.FirstChanceExceptions,
                ["type"] = typeof(InvalidOperationException).FullName,
            },

            ["lockContention"] = new JsonObject
            {
                ["requested"] = LockWork.Requested,
                ["hadToWait"] = LockWork.HadToWait,
                ["acquiredAfterWait"] = LockWork.AcquiredAfterWait,
                ["tryEnterSucceeded"] = LockWork.TryEnterSucceeded,
                ["holderSawRise"] = LockWork.HolderSawRise,
                ["holderTimeouts"] = LockWork.HolderTimeouts,
                ["heldMs"] = LockWork.Held.TotalMilliseconds,
                ["windowDelta"] = LockWork.WindowContentions,
                ["lockPhaseDelta"] = Phases.LockContentions("lockContention"),
                ["before"] = atStart.LockContentionCount,
                ["after"] = final.LockContentionCount,
                ["delta"] = final.LockContentionCount - atStart.LockContentionCount,
            },
            ["lockContentionCount"] = final.LockContentionCount,

            ["threads"] = new JsonObject
            {
                ["started"] = ThreadWork.ShortStarted,
                ["completed"] = Interlocked.Read(ref ThreadWork.ShortCompleted),
                ["liveStarted"] = ThreadWork.LiveStarted,
                ["aliveAtEnd"] = ThreadWork.LiveAlive(),
                ["lockThreadsStarted"] = LockWork.ThreadsStarted,
                ["totalStarted"] = ThreadWork.ShortStarted + ThreadWork.LiveStarted + LockWork.ThreadsStarted,
                ["threadPoolThreadCount"] = final.ThreadPoolThreads,
                ["threadPoolCompletedWorkItems"] = ThreadPool.CompletedWorkItemCount,
                ["osThreadsAtStart"] = atStart.OsThreads,
                ["osThreads"] = final.OsThreads,
            },

            ["assemblyCount"] = final.AssemblyCount,
            ["assemblies"] = new JsonObject
            {
                ["countAtStart"] = atStart.AssemblyCount,
                ["count"] = final.AssemblyCount,
                ["loadedByProgram"] = new JsonArray(AssemblyWork.NewlyLoaded.Select(n => (JsonNode?)JsonValue.Create(n)).ToArray()),
                ["alreadyLoaded"] = new JsonArray(AssemblyWork.AlreadyLoaded.Select(n => (JsonNode?)JsonValue.Create(n)).ToArray()),
            },

            ["jit"] = new JsonObject
            {
                ["compiledMethodCount"] = final.JitMethods,
                ["compiledILBytes"] = final.JitILBytes,
                ["compilationTimeMs"] = final.JitTimeMs,
            },

            ["phases"] = Phases.ToJson(),
            ["settled"] = settled.ToJson(atStart),
            ["changedDuringWait"] = Diff(settled, final),
        };
    }
}
