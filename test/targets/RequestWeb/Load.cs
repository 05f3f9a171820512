using System.Diagnostics;
using System.Globalization;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.RequestWeb;

public static class Load
{
    public static async Task<int> Run(string[] args)
    {
        string? url = null;
        double seconds = 3;
        int parallel = 4;
        string[] paths = ["/cpu/10", "/delay/40", "/block/20"];
        for (int i = 0; i < args.Length; i++)
        {
            bool ok = i + 1 < args.Length;
            switch (args[i])
            {
                case "--url" when ok: url = args[++i].TrimEnd('/'); break;
                case "--seconds" when ok: seconds = Program.ParseDouble(args[++i]); break;
                case "--parallel" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int p) && p is >= 1 and <= 256:
                    parallel = p; i++; break;
                case "--paths" when ok: paths = args[++i].Split(',', StringSplitOptions.RemoveEmptyEntries); break;
                default:
                    Console.Error.WriteLine($"RequestWeb load: bad argument '{args[i]}'");
                    return 2;
            }
        }
        if (url is null || paths.Length == 0 || !(seconds > 0))
        {
            Console.Error.WriteLine("RequestWeb load: --url is required, --paths must name a path and --seconds be positive");
            return 2;
        }
        using var client = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = parallel });
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        var loops = new Task<List<(string, double)>>[parallel];
        for (int i = 0; i < parallel; i++) loops[i] = Loop(client, url, paths, i, deadline);
        var all = (await Task.WhenAll(loops)).SelectMany(l => l).ToList();
        var byPath = new JsonObject();
        foreach (var g in all.GroupBy(s => s.Item1).OrderBy(g => g.Key, StringComparer.Ordinal))
        {
            double[] ms = g.Select(s => s.Item2).Order().ToArray();
            byPath[g.Key] = new JsonObject
            {
                ["count"] = ms.Length,
                ["p50Ms"] = Quantile(ms, 0.50),
                ["p90Ms"] = Quantile(ms, 0.90),
                ["p99Ms"] = Quantile(ms, 0.99),
                ["maxMs"] = ms[^1],
                ["meanMs"] = ms.Average(),
            };
        }
        Console.WriteLine("RESULT " + new JsonObject { ["sent"] = all.Count, ["paths"] = byPath }.ToJsonString());
        return 0;
    }

    static async Task<List<(string, double)>> Loop(HttpClient client, string url, string[] paths, int start, long deadline)
    {
        var done = new List<(string, double)>();
        for (int n = start; Stopwatch.GetTimestamp() < deadline; n++)
        {
            string path = paths[n % paths.Length];
            long t0 = Stopwatch.GetTimestamp();
            using var response = await client.GetAsync(url + path);
            await response.Content.ReadAsByteArrayAsync();
            done.Add((path, Stopwatch.GetElapsedTime(t0).TotalMilliseconds));
        }
        return done;
    }

    // Nearest rank, as the report computes it.
    static double Quantile(double[] sorted, double q) => sorted[Math.Max(0, (int)Math.Ceiling(q * sorted.Length) - 1)];
}
