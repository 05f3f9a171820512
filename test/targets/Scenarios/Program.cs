using System.Diagnostics;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// Scenarios: known, deterministic workloads for clrscope's integration tests.
/// Usage: Scenarios &lt;scenario&gt;... [--seconds N] [--exit-code N] [--exceptions N] [--depth N] [--self-check]
/// stdout: INFO lines, one READY line before the scenarios start, and one RESULT {json} line at the end.
/// stderr: "Scenarios: done" at the end (stderr pass-through tests). Exit code: --exit-code (default 0),
/// 2 for a usage error.
/// </summary>
public static class Program
{
    private const double CalibrationMs = 50;

    public static int Main(string[] args)
    {
        Options options;
        try
        {
            options = Options.Parse(args);
        }
        catch (UsageException e)
        {
            Console.Error.WriteLine($"Scenarios: {e.Message}");
            Console.Error.WriteLine(Options.Usage);
            return 2;
        }
        if (options.Help)
        {
            Console.WriteLine(Options.Usage);
            return 0;
        }

        long start = Stopwatch.GetTimestamp();
        Calibration.Run(TimeSpan.FromMilliseconds(CalibrationMs));
        Console.WriteLine(
            $"INFO calibration kernelIterationsPerMs={Math.Round(Calibration.IterationsPerMs)} tookMs={Math.Round(Calibration.CalibrationMs, 1)}");

        List<Scenario> scenarios = options.Scenarios.Select(name => Scenario.Create(name, options)).ToList();
        var ready = new JsonObject
        {
            ["pid"] = Environment.ProcessId,
            ["scenarios"] = new JsonArray(options.Scenarios.Select(s => (JsonNode?)JsonValue.Create(s)).ToArray()),
            ["seconds"] = options.Seconds,
        };
        Console.WriteLine($"READY {ready.ToJsonString()}");

        foreach (Scenario s in scenarios) s.Start();
        var results = new JsonObject();
        foreach (Scenario s in scenarios) results[s.Name] = s.Finish();

        var result = new JsonObject
        {
            ["program"] = "Scenarios",
            ["pid"] = Environment.ProcessId,
            ["seconds"] = options.Seconds,
            ["exitCode"] = options.ExitCode,
            ["elapsedMs"] = Math.Round(Stopwatch.GetElapsedTime(start).TotalMilliseconds, 1),
            // Every thread of the process, a profiler's own included: what profiling costs.
            ["processCpuMs"] = Math.Round(System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds, 1),
            ["kernelIterationsPerMs"] = Math.Round(Calibration.IterationsPerMs),
            ["scenarios"] = results,
            ["threads"] = ThreadFacts.ToJson(),
        };
        Console.WriteLine($"RESULT {result.ToJsonString()}");
        Console.Out.Flush();
        Console.Error.WriteLine("Scenarios: done");
        return options.ExitCode;
    }
}
