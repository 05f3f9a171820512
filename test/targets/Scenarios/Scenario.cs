using System.Diagnostics;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// One scenario: <see cref="Start"/> launches its named thread(s) and returns at once;
/// <see cref="Finish"/> joins them and returns the facts for the RESULT line.
/// </summary>
internal abstract class Scenario(Options options)
{
    protected Options Options { get; } = options;
    private readonly List<Thread> _threads = [];
    private long _startTimestamp;

    public abstract string Name { get; }

    public void Start()
    {
        _startTimestamp = Stopwatch.GetTimestamp();
        OnStart();
    }

    public JsonObject Finish()
    {
        foreach (Thread t in _threads) t.Join();
        // Elapsed = start of the scenario to the end of its last thread (not to this join, which may come later).
        long end = _threads.Select(t => ThreadFacts.EndTimestampOf(t.Name!) ?? Stopwatch.GetTimestamp()).DefaultIfEmpty(Stopwatch.GetTimestamp()).Max();
        JsonObject facts = Facts();
        facts["elapsedMs"] = Ms(end - _startTimestamp);
        return facts;
    }

    protected abstract void OnStart();
    protected abstract JsonObject Facts();

    /// <summary>Starts a foreground thread whose name is set before Start.</summary>
    protected Thread StartThread(string name, ParameterizedThreadStart body, object? state, int maxStackSize = 0)
    {
        var t = new Thread(body, maxStackSize) { Name = name, IsBackground = false };
        t.Start(state);
        _threads.Add(t);
        return t;
    }

    public static Scenario Create(string name, Options o) => name switch
    {
        "cpu-ratio" => new CpuRatioScenario(o),
        "sleep" => new SleepScenario(o),
        "lock" => new LockScenario(o),
        "recursion" => new RecursionScenario(o),
        "async" => new AsyncScenario(o),
        "exceptions" => new ExceptionsScenario(o),
        "threads" => new ShortThreadsScenario(o),
        "pinvoke" => new PInvokeScenario(o),
        "hop" => new HopScenario(o),
        "osr" => new OsrScenario(o),
        "gc-churn" => new GcChurnScenario(o),
        "lcg" => new LcgScenario(o),
        "hot-line" => new HotLineScenario(o),
        "throw-mix" => new ThrowMixScenario(o),
        "lock-wait" => new LockWaitScenario(o),
        "alloc-ratio" => new AllocRatioScenario(o),
        "lock-churn" => new LockChurnScenario(o),
        "live-heap" => new LiveHeapScenario(o),
        "hardware-faults" => new HardwareFaultsScenario(o),
        "pool-load" => new PoolLoadScenario(o),
        "dispatch" => new DispatchScenario(o),
        "async-rethrow" => new AsyncRethrowScenario(o),
        _ => throw new UsageException($"unknown scenario '{name}'"),
    };

    protected static double Ms(long stopwatchTicks) => Math.Round(stopwatchTicks * 1000.0 / Stopwatch.Frequency, 1);
}
