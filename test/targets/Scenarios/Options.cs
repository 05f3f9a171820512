using System.Globalization;

namespace Clrscope.Targets.Scenarios;

/// <summary>Command line of the Scenarios program. See README.md next to this folder.</summary>
internal sealed class Options
{
    public static readonly string[] AllScenarios =
    [
        "cpu-ratio", "sleep", "lock", "recursion", "async", "exceptions", "threads", "pinvoke",
    ];

    // Scenarios for the profiler's own corner cases, run by name only (not part of "all").
    public static readonly string[] MoreScenarios = ["hop", "osr", "gc-churn", "lcg", "hot-line", "throw-mix", "lock-wait", "alloc-ratio", "lock-churn", "live-heap", "hardware-faults", "pool-load", "dispatch", "async-rethrow"];

    public const string Usage =
        "usage: Scenarios <scenario>... [--seconds N] [--exit-code N] [--exceptions N] [--collect-every N] [--depth N] [--heavy-factor F] [--allocate-mb N] [--self-check] [--throw-on-stdin]\n" +
        "  scenarios: cpu-ratio sleep lock recursion async exceptions threads pinvoke all, and hop osr gc-churn lcg hot-line throw-mix lock-wait alloc-ratio lock-churn live-heap hardware-faults pool-load dispatch async-rethrow";

    public List<string> Scenarios { get; } = [];
    public double Seconds { get; private set; } = 3;
    public int ExitCode { get; private set; }
    public int Exceptions { get; private set; } = 1000;
    // async-rethrow: a gen0 collection inside every Nth request, while its exception is in flight.
    public int CollectEvery { get; private set; }
    public int Depth { get; private set; } = 10_000;
    public int HeavyFactor { get; private set; } = 3;
    public int AllocateMb { get; private set; } = 400;
    public bool SelfCheck { get; private set; }
    // throw-mix waits for a line on stdin before it throws.
    public bool ThrowOnStdin { get; private set; }
    public bool Help { get; private set; }

    public TimeSpan Duration => TimeSpan.FromSeconds(Seconds);

    public static Options Parse(string[] args)
    {
        var o = new Options();
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            switch (a)
            {
                case "--seconds":
                    o.Seconds = ParseDouble(a, Next(args, ref i), min: 0.01);
                    break;
                case "--exit-code":
                    o.ExitCode = ParseInt(a, Next(args, ref i), min: 0, max: 255);
                    break;
                case "--exceptions":
                    o.Exceptions = ParseInt(a, Next(args, ref i), min: 0, max: 10_000_000);
                    break;
                case "--collect-every":
                    o.CollectEvery = ParseInt(a, Next(args, ref i), min: 1, max: 10_000_000);
                    break;
                case "--depth":
                    o.Depth = ParseInt(a, Next(args, ref i), min: 1, max: 1_000_000);
                    break;
                case "--heavy-factor":
                    o.HeavyFactor = ParseInt(a, Next(args, ref i), min: 1, max: 100);
                    break;
                case "--allocate-mb":
                    o.AllocateMb = ParseInt(a, Next(args, ref i), min: 1, max: 100_000);
                    break;
                case "--self-check":
                    o.SelfCheck = true;
                    break;
                case "--throw-on-stdin":
                    o.ThrowOnStdin = true;
                    break;
                case "-h":
                case "--help":
                    o.Help = true;
                    break;
                case "all":
                    foreach (string s in AllScenarios) o.Add(s);
                    break;
                default:
                    if (a.StartsWith('-')) throw new UsageException($"unknown option '{a}'");
                    if (!AllScenarios.Contains(a) && !MoreScenarios.Contains(a)) throw new UsageException($"unknown scenario '{a}'");
                    o.Add(a);
                    break;
            }
        }
        if (o.Scenarios.Count == 0 && !o.Help) throw new UsageException("no scenario given");
        return o;
    }

    private void Add(string scenario)
    {
        if (!Scenarios.Contains(scenario)) Scenarios.Add(scenario);
    }

    private static string Next(string[] args, ref int i)
    {
        if (i + 1 >= args.Length) throw new UsageException($"option '{args[i]}' needs a value");
        return args[++i];
    }

    private static double ParseDouble(string name, string value, double min)
    {
        if (!double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double d) || d < min || double.IsInfinity(d))
            throw new UsageException($"option '{name}' needs a number >= {min.ToString(CultureInfo.InvariantCulture)}, got '{value}'");
        return d;
    }

    private static int ParseInt(string name, string value, int min, int max)
    {
        if (!int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) || n < min || n > max)
            throw new UsageException($"option '{name}' needs an integer in [{min}, {max}], got '{value}'");
        return n;
    }
}

internal sealed class UsageException(string message) : Exception(message);
