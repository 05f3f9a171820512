using System.Text.Json.Nodes;

namespace Clrscope.Targets.Measure;

/// <summary>
/// Measure: methods with known call counts, for clrscope's exact measurement (ReJIT) tests.
///
///   Measure [--warmup]      then one command per stdin line, one answer line each on stdout:
///     round                 Work.A x10,000, Work.B x3,000 (B&lt;int&gt; x1,000, B&lt;string&gt; x2,000), Work.C x500 (100 throw), Work.D x50 (20 ms each) -> ROUND {json}
///     check                 the Shapes against their twins -> CHECK {json}
///     spin SECONDS          Bench.Trivial in a loop -> SPIN {json}
///     exit                  -> exit code 0
///   Measure --do CMD,CMD,...  the same commands from the command line instead of stdin, then exit
///                         (also sleep:SECONDS, a pause between two of them)
///   Measure bench [--seconds S] [--chunk N]   measured vs plain cost per call -> RESULT {json}
///
/// --warmup: before READY, runs the loops until tiered up (A and B then inlined into them) and
/// one check, as a long-running program would have them when clrscope attaches.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "bench")
        {
            double seconds = 3;
            int chunk = 2_000_000;
            for (int i = 1; i < args.Length; i++)
            {
                if (args[i] == "--seconds" && i + 1 < args.Length && double.TryParse(args[++i], out double s)) seconds = s;
                else if (args[i] == "--chunk" && i + 1 < args.Length && int.TryParse(args[++i], out int c)) chunk = c;
                else return Usage($"unknown bench option '{args[i]}'");
            }
            Console.WriteLine($"RESULT {Bench.Run(seconds, chunk).ToJsonString()}");
            return 0;
        }
        bool warmup = false;
        string[]? script = null;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--warmup") warmup = true;
            else if (args[i] == "--do" && i + 1 < args.Length) script = args[++i].Split(',', StringSplitOptions.RemoveEmptyEntries);
            else return Usage($"unknown option '{args[i]}'");
        }
        if (warmup)
        {
            Round.WarmUp();
            Check.Run();
        }
        Console.WriteLine($"READY {new JsonObject { ["pid"] = Environment.ProcessId, ["warmedUp"] = warmup }.ToJsonString()}");
        Console.Out.Flush();
        int rounds = 0;
        int next = 0;
        string? line;
        while ((line = script is null ? Console.ReadLine() : next < script.Length ? script[next++].Replace(':', ' ') : "exit") != null)
        {
            string[] words = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (words.Length == 0) continue;
            switch (words[0])
            {
                case "sleep":
                    Thread.Sleep(TimeSpan.FromSeconds(words.Length > 1 && double.TryParse(words[1], out double pause) ? pause : 1));
                    Console.WriteLine("SLEPT");
                    break;
                case "round":
                    (long sum, int thrown) = Round.Run();
                    rounds++;
                    Console.WriteLine($"ROUND {new JsonObject { ["round"] = rounds, ["sum"] = sum, ["thrown"] = thrown }.ToJsonString()}");
                    break;
                case "check":
                    Console.WriteLine($"CHECK {Check.Run().ToJsonString()}");
                    break;
                case "spin":
                    double seconds = words.Length > 1 && double.TryParse(words[1], out double s) ? s : 1;
                    Console.WriteLine($"SPIN {new JsonObject { ["calls"] = Bench.Spin(seconds) }.ToJsonString()}");
                    break;
                case "exit":
                    return 0;
                default:
                    Console.WriteLine($"ERROR unknown command '{words[0]}'");
                    break;
            }
            Console.Out.Flush();
        }
        return 0;
    }

    static int Usage(string message)
    {
        Console.Error.WriteLine($"Measure: {message}");
        Console.Error.WriteLine("usage: Measure [--warmup] [--do CMD,...] (else commands on stdin: round, check, spin SECONDS, sleep SECONDS, exit) | Measure bench [--seconds S] [--chunk N]");
        return 2;
    }
}
