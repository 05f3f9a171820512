using System.Globalization;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// Torture: programs that do to themselves what real programs do and a profiler must survive
/// (unloading native libraries, owning SIGPROF, forking, thousands of threads, 100k-deep stacks,
/// blocked signals, collectible code). One scenario per run.
/// Usage: Torture &lt;scenario&gt; [--exit-code N] [--scale X] [--seconds N]
/// stdout: READY {json} before the work starts, FACT {json} lines with what this run observed
/// (addresses, signal counts: they may differ between runs), and a last RESULT {json} line that
/// depends only on the arguments: a run under a profiler must print the same RESULT line and
/// exit with the same code as a run without one.
/// </summary>
public static class Program
{
    public const string Usage =
        "usage: Torture <scenario> [--exit-code N] [--scale X] [--seconds N]\n" +
        "  scenarios: library-swap sigprof-default sigprof-ignore sigprof-handler itimer-prof thread-churn\n" +
        "             deep-recursion exceptions fork dynamic-code lock-convoy blocked-signals serve signal-takeover\n" +
        "             masked-threads";

    private static readonly Dictionary<string, Func<Options, JsonObject>> Scenarios = new()
    {
        ["library-swap"] = LibrarySwap.Run,
        ["sigprof-default"] = o => SigprofWork.Run(o, SigprofWork.Mode.Default),
        ["sigprof-ignore"] = o => SigprofWork.Run(o, SigprofWork.Mode.Ignore),
        ["sigprof-handler"] = o => SigprofWork.Run(o, SigprofWork.Mode.Handler),
        ["itimer-prof"] = o => SigprofWork.Run(o, SigprofWork.Mode.Itimer),
        ["thread-churn"] = ThreadChurn.Run,
        ["deep-recursion"] = DeepRecursion.Run,
        ["exceptions"] = ExceptionStorm.Run,
        ["fork"] = ForkWork.Run,
        ["dynamic-code"] = DynamicCode.Run,
        ["lock-convoy"] = LockConvoy.Run,
        ["blocked-signals"] = BlockedSignals.Run,
        ["serve"] = Serve.Run,
        ["signal-takeover"] = SignalTakeover.Run,
        ["masked-threads"] = MaskedThreads.Run,
    };

    public static int Main(string[] args)
    {
        Options options;
        try
        {
            options = Options.Parse(args);
        }
        catch (FormatException e)
        {
            Console.Error.WriteLine($"Torture: {e.Message}");
            Console.Error.WriteLine(Usage);
            return 2;
        }
        if (!Scenarios.TryGetValue(options.Scenario, out Func<Options, JsonObject>? run))
        {
            Console.Error.WriteLine($"Torture: unknown scenario '{options.Scenario}'");
            Console.Error.WriteLine(Usage);
            return 2;
        }
        Native.Init();
        Console.WriteLine($"READY {new JsonObject { ["pid"] = Environment.ProcessId, ["scenario"] = options.Scenario }.ToJsonString()}");
        JsonObject result = run(options);
        var line = new JsonObject
        {
            ["program"] = "Torture",
            ["scenario"] = options.Scenario,
            ["scale"] = options.Scale,
            ["exitCode"] = options.ExitCode,
            ["result"] = result,
        };
        Console.WriteLine($"RESULT {line.ToJsonString()}");
        Console.Out.Flush();
        return options.ExitCode;
    }

    /// <summary>A run-specific observation (not compared between runs).</summary>
    public static void Fact(JsonObject fact)
    {
        lock (Scenarios) Console.WriteLine($"FACT {fact.ToJsonString()}");
    }
}

public sealed class Options
{
    public string Scenario { get; private set; } = "";
    public int ExitCode { get; private set; }
    public double Scale { get; private set; } = 1;
    public double Seconds { get; private set; } = 600;

    /// <summary>`n` scaled by --scale, at least 1.</summary>
    public int Scaled(int n) => Math.Max(1, (int)Math.Round(n * Scale));

    public static Options Parse(string[] args)
    {
        var o = new Options();
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            string Next() => i + 1 < args.Length ? args[++i] : throw new FormatException($"{a} needs a value");
            switch (a)
            {
                case "--exit-code":
                    o.ExitCode = int.Parse(Next(), CultureInfo.InvariantCulture);
                    if (o.ExitCode is < 0 or > 255) throw new FormatException("--exit-code is 0..255");
                    break;
                case "--scale":
                    o.Scale = double.Parse(Next(), CultureInfo.InvariantCulture);
                    if (!(o.Scale > 0)) throw new FormatException("--scale must be positive");
                    break;
                case "--seconds":
                    o.Seconds = double.Parse(Next(), CultureInfo.InvariantCulture);
                    break;
                default:
                    if (a.StartsWith('-') || o.Scenario != "") throw new FormatException($"unexpected argument '{a}'");
                    o.Scenario = a;
                    break;
            }
        }
        if (o.Scenario == "") throw new FormatException("no scenario given");
        return o;
    }
}
