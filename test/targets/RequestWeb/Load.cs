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
        bool close = false;
        bool http2 = false;
        bool shutdown = false;
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
                case "--close": close = true; break;
                case "--http2": http2 = true; break;
                case "--shutdown": shutdown = true; break;
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
        // HTTP/2 without TLS by prior knowledge: the server must listen for it alone
        // (Kestrel__EndpointDefaults__Protocols=Http2); every request is then a stream of one connection.
        using var client = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = parallel });
        if (http2)
        {
            client.DefaultRequestVersion = System.Net.HttpVersion.Version20;
            client.DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact;
        }
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        var loops = new Task<List<(string, double)>>[parallel];
        for (int i = 0; i < parallel; i++) loops[i] = Loop(client, url, paths, i, deadline, close);
        var all = (await Task.WhenAll(loops)).SelectMany(l => l).ToList();
        if (shutdown)
        {
            // In the load's own protocol: a server that speaks only HTTP/2 takes no other client's.
            using var stop = new HttpRequestMessage(HttpMethod.Post, url + "/shutdown") { Version = client.DefaultRequestVersion, VersionPolicy = client.DefaultVersionPolicy };
            (await client.SendAsync(stop)).Dispose();
        }
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

    static async Task<List<(string, double)>> Loop(HttpClient client, string url, string[] paths, int start, long deadline, bool close)
    {
        var done = new List<(string, double)>();
        for (int n = start; Stopwatch.GetTimestamp() < deadline; n++)
        {
            string path = paths[n % paths.Length];
            long t0 = Stopwatch.GetTimestamp();
            // With close, every request is a new connection's first (as curl's, or a client without keep-alive).
            using var request = new HttpRequestMessage(HttpMethod.Get, url + path) { Version = client.DefaultRequestVersion, VersionPolicy = client.DefaultVersionPolicy };
            if (close) request.Headers.ConnectionClose = true;
            using var response = await client.SendAsync(request);
            await response.Content.ReadAsByteArrayAsync();
            done.Add((path, Stopwatch.GetElapsedTime(t0).TotalMilliseconds));
        }
        return done;
    }

    // Nearest rank, as the report computes it.
    static double Quantile(double[] sorted, double q) => sorted[Math.Max(0, (int)Math.Ceiling(q * sorted.Length) - 1)];
}
