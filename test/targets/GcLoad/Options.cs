using System.Globalization;

namespace Clrscope.Targets.GcLoad;

public sealed class UsageException(string message) : Exception(message);

/// <summary>Command line of GcLoad. Every count defaults to 0, so a bare run does nothing but report.</summary>
public sealed class Options
{
    public const string Usage =
        "usage: GcLoad [--gen0 N] [--gen1 N] [--gen2 N] [--background N] [--allocate-mb M] [--churn-mb M] [--exceptions N]\n" +
        "              [--threads M] [--live-threads K] [--lock-contention N] [--load-assemblies]\n" +
        "              [--wait-start MS] [--wait-at-end MS] [--duration S [--repeat-every MS]] [--exit-code N]";

    public int Gen0 { get; private set; }
    public int Gen1 { get; private set; }
    public int Gen2 { get; private set; }
    /// <summary>Induced background gen2 collections per round, each waited for.</summary>
    public int Background { get; private set; }
    public int AllocateMb { get; private set; }
    /// <summary>MB allocated into a 64 MB ring of survivors that die old: gen 2 fills and empties, so the runtime
    /// runs background GCs (most with a gen 1 just before) among the blocking ones.</summary>
    public int ChurnMb { get; private set; }
    public int Exceptions { get; private set; }
    public int Threads { get; private set; }
    public int LiveThreads { get; private set; }
    public int LockContention { get; private set; }
    public bool LoadAssemblies { get; private set; }
    public int WaitStartMs { get; private set; }
    public int WaitAtEndMs { get; private set; }
    /// <summary>Loop mode when not null: repeat the workload every <see cref="RepeatEveryMs"/> for this many seconds.</summary>
    public double? DurationSeconds { get; private set; }
    public int RepeatEveryMs { get; private set; } = 1000;
    public int ExitCode { get; private set; }
    public bool Help { get; private set; }

    public static Options Parse(string[] args)
    {
        var o = new Options();
        bool repeatGiven = false;
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            switch (a)
            {
                case "-h" or "--help": o.Help = true; break;
                case "--gen0": o.Gen0 = Int(args, ref i, 0, 1_000_000); break;
                case "--gen1": o.Gen1 = Int(args, ref i, 0, 1_000_000); break;
                case "--gen2": o.Gen2 = Int(args, ref i, 0, 1_000_000); break;
                case "--background": o.Background = Int(args, ref i, 0, 1000); break;
                case "--allocate-mb": o.AllocateMb = Int(args, ref i, 0, 1_000_000); break;
                case "--churn-mb": o.ChurnMb = Int(args, ref i, 0, 1_000_000); break;
                case "--exceptions": o.Exceptions = Int(args, ref i, 0, 100_000_000); break;
                case "--threads": o.Threads = Int(args, ref i, 0, 1_000_000); break;
                case "--live-threads": o.LiveThreads = Int(args, ref i, 0, 1000); break;
                case "--lock-contention": o.LockContention = Int(args, ref i, 0, 10_000_000); break;
                case "--load-assemblies": o.LoadAssemblies = true; break;
                case "--wait-start": o.WaitStartMs = Int(args, ref i, 0, int.MaxValue); break;
                case "--wait-at-end": o.WaitAtEndMs = Int(args, ref i, 0, int.MaxValue); break;
                case "--repeat-every": o.RepeatEveryMs = Int(args, ref i, 0, int.MaxValue); repeatGiven = true; break;
                case "--exit-code": o.ExitCode = Int(args, ref i, 0, 255); break;
                case "--duration":
                    if (i + 1 >= args.Length ||
                        !double.TryParse(args[i + 1], NumberStyles.Float, CultureInfo.InvariantCulture, out double s) ||
                        !(s > 0 && s <= 86_400))
                        throw new UsageException($"--duration needs a number of seconds (0 < S <= 86400)");
                    o.DurationSeconds = s;
                    i++;
                    break;
                default: throw new UsageException($"bad argument '{a}'");
            }
        }
        if (repeatGiven && o.DurationSeconds is null)
            throw new UsageException("--repeat-every needs --duration");
        return o;
    }

    private static int Int(string[] args, ref int i, int min, int max)
    {
        string name = args[i];
        if (i + 1 >= args.Length ||
            !int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int v) ||
            v < min || v > max)
            throw new UsageException($"{name} needs an integer in [{min}, {max}]");
        i++;
        return v;
    }
}
