using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// cpu-ratio: Heavy runs exactly <see cref="HeavyFactor"/> times the kernel iterations of Light,
/// with an identical loop, so Heavy:Light CPU is 3:1 (75% / 25%) by default, F:1 with --heavy-factor F.
/// </summary>
public static class CpuWork
{
    /// <summary>Set from --heavy-factor before the threads start (default 3).</summary>
    public static int HeavyFactor = 3;

    /// <summary>Iterations of one Light() call; Heavy() does HeavyFactor times as many. Set before the threads start.</summary>
    public static long LightIterations = 1;

    private static ulong s_sink;

    public static ulong Sink => Volatile.Read(ref s_sink);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Heavy(long lightIterations)
    {
        long n = HeavyFactor * lightIterations;
        ulong x = 0x9E3779B97F4A7C15UL;
        for (long i = 0; i < n; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        Volatile.Write(ref s_sink, x);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Light(long lightIterations)
    {
        long n = 1 * lightIterations;
        ulong x = 0x9E3779B97F4A7C15UL;
        for (long i = 0; i < n; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        Volatile.Write(ref s_sink, x);
        return x;
    }

    /// <summary>
    /// The length of the i-th Heavy/Light pair: LightIterations scaled by a deterministic factor in
    /// [0.5, 1.5) whose mean is 1. The kernel fires CPU-time timers on scheduler ticks; a cycle of
    /// fixed length commensurate with the tick would alias (every sample landing at the same phase
    /// of the cycle), so the cycle length varies while the 3:1 ratio holds for every pair.
    /// </summary>
    public static long PairIterations(int i)
    {
        uint h = (uint)i * 2654435761u;
        h ^= h >> 15;
        double factor = 0.5 + (h % 1024) / 1024.0;
        return Math.Max(1, (long)(LightIterations * factor));
    }

    /// <summary>Body of threads burn-heavy and burn-light: Heavy() then Light(), OuterIterations times.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Burn(object? state)
    {
        var plan = (BurnPlan)state!;
        if (!plan.SelfCheck)
        {
            for (int i = 0; i < plan.OuterIterations; i++)
            {
                long n = PairIterations(i);
                Heavy(n);
                Light(n);
            }
        }
        else
        {
            // --self-check: time each call by wall clock (Stopwatch) and by this thread's CPU clock.
            for (int i = 0; i < plan.OuterIterations; i++)
            {
                long n = PairIterations(i);
                double c0 = Native.ThreadCpuMs();
                long t0 = Stopwatch.GetTimestamp();
                Heavy(n);
                long t1 = Stopwatch.GetTimestamp();
                double c1 = Native.ThreadCpuMs();
                Light(n);
                long t2 = Stopwatch.GetTimestamp();
                double c2 = Native.ThreadCpuMs();
                plan.HeavyTicks += t1 - t0;
                plan.LightTicks += t2 - t1;
                plan.HeavyCpuMs += c1 - c0;
                plan.LightCpuMs += c2 - c1;
            }
        }
        plan.CpuMs = Native.ThreadCpuMs();
        ThreadFacts.Record();
    }
}

public sealed class BurnPlan(int outerIterations, bool selfCheck)
{
    public int OuterIterations { get; } = outerIterations;
    public bool SelfCheck { get; } = selfCheck;
    public long HeavyTicks;
    public long LightTicks;
    public double HeavyCpuMs;
    public double LightCpuMs;
    public double CpuMs;
}

internal sealed class CpuRatioScenario(Options o) : Scenario(o)
{
    /// <summary>Mean CPU time of one Light() call; one outer iteration (Heavy+Light) is 4x this on average.</summary>
    private const double LightCallMs = 0.3;

    private BurnPlan _heavy = null!;
    private BurnPlan _light = null!;

    public override string Name => "cpu-ratio";

    protected override void OnStart()
    {
        CpuWork.HeavyFactor = Options.HeavyFactor;
        CpuWork.LightIterations = Calibration.IterationsFor(LightCallMs);
        double outerMs = (CpuWork.HeavyFactor + 1) * LightCallMs;
        // burn-heavy does twice the outer iterations of burn-light and should take about --seconds of one core.
        int lightOuter = Math.Max(1, (int)Math.Round(Options.Seconds * 1000.0 / outerMs / 2));
        _heavy = new BurnPlan(2 * lightOuter, Options.SelfCheck);
        _light = new BurnPlan(lightOuter, Options.SelfCheck);
        Console.WriteLine(
            $"INFO cpu-ratio lightIterations={CpuWork.LightIterations} heavyIterations={CpuWork.HeavyFactor * CpuWork.LightIterations} " +
            $"burnHeavyOuter={_heavy.OuterIterations} burnLightOuter={_light.OuterIterations}");
        StartThread("burn-heavy", CpuWork.Burn, _heavy);
        StartThread("burn-light", CpuWork.Burn, _light);
    }

    protected override JsonObject Facts()
    {
        var facts = new JsonObject
        {
            ["heavyFactor"] = CpuWork.HeavyFactor,
            ["lightIterations"] = CpuWork.LightIterations,
            ["heavyIterations"] = CpuWork.HeavyFactor * CpuWork.LightIterations,
            ["burnHeavyOuter"] = _heavy.OuterIterations,
            ["burnLightOuter"] = _light.OuterIterations,
            ["heavyCalls"] = _heavy.OuterIterations + _light.OuterIterations,
            ["lightCalls"] = _heavy.OuterIterations + _light.OuterIterations,
            ["burnHeavyCpuMs"] = Math.Round(_heavy.CpuMs, 1),
            ["burnLightCpuMs"] = Math.Round(_light.CpuMs, 1),
        };
        if (Options.SelfCheck)
        {
            double heavyMs = Ms(_heavy.HeavyTicks + _light.HeavyTicks);
            double lightMs = Ms(_heavy.LightTicks + _light.LightTicks);
            double heavyCpuMs = _heavy.HeavyCpuMs + _light.HeavyCpuMs;
            double lightCpuMs = _heavy.LightCpuMs + _light.LightCpuMs;
            var check = new JsonObject
            {
                // Wall time inside the calls (Stopwatch): includes time preempted by other threads.
                ["heavyMs"] = heavyMs,
                ["lightMs"] = lightMs,
                ["heavyToLight"] = Math.Round(heavyMs / Math.Max(lightMs, 1e-9), 3),
                // CPU time inside the calls (CLOCK_THREAD_CPUTIME_ID): what a CPU-time profiler should see.
                ["heavyCpuMs"] = Math.Round(heavyCpuMs, 1),
                ["lightCpuMs"] = Math.Round(lightCpuMs, 1),
                ["heavyToLightCpu"] = Math.Round(heavyCpuMs / Math.Max(lightCpuMs, 1e-9), 3),
                ["heavyShareCpu"] = Math.Round(heavyCpuMs / Math.Max(heavyCpuMs + lightCpuMs, 1e-9), 4),
                // CPU time of burn-heavy over burn-light (expected 2).
                ["threadCpuRatio"] = Math.Round(_heavy.CpuMs / Math.Max(_light.CpuMs, 1e-9), 3),
            };
            facts["selfCheck"] = check;
            Console.WriteLine($"INFO cpu-ratio self-check {check.ToJsonString()}");
        }
        return facts;
    }
}
