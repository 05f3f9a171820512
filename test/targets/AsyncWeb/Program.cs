using System.Diagnostics;
using System.Globalization;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.AsyncWeb;

/// <summary>
/// AsyncWeb [--seconds S] [--parallel P]
///   An ASP.NET Core minimal API whose endpoint is an async lambda: it awaits Task.Yield (its
///   continuation runs on a pool thread, out of Kestrel's call stack) and then spins ~2 ms, so the
///   CPU samples land in the lambda's MoveNext with the framework methods awaiting it only in the
///   logical (async) stack. The program serves itself: it listens on a free loopback port and P
///   HttpClient loops request the endpoint for S seconds. Prints RESULT {...} and exits 0.
/// </summary>
public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        double seconds = 3;
        int parallel = 2;
        for (int i = 0; i < args.Length; i++)
        {
            bool ok = i + 1 < args.Length;
            switch (args[i])
            {
                case "--seconds" when ok && double.TryParse(args[i + 1], NumberStyles.Float, CultureInfo.InvariantCulture, out double s) && s > 0 && s <= 3600:
                    seconds = s; i++; break;
                case "--parallel" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int p) && p is >= 1 and <= 64:
                    parallel = p; i++; break;
                default:
                    Console.Error.WriteLine($"AsyncWeb: bad argument '{args[i]}'; usage: AsyncWeb [--seconds S] [--parallel P]");
                    return 2;
            }
        }

        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        var app = builder.Build();
        Endpoints.Map(app);
        await app.StartAsync();
        string url = app.Urls.First() + "/work";

        using var client = new HttpClient();
        long deadline = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
        long t0 = Stopwatch.GetTimestamp();
        var loops = new Task<long>[parallel];
        for (int i = 0; i < parallel; i++) loops[i] = Client(client, url, deadline);
        long[] served = await Task.WhenAll(loops);
        double ms = Stopwatch.GetElapsedTime(t0).TotalMilliseconds;
        await app.StopAsync();

        var result = new JsonObject
        {
            ["mode"] = "web",
            ["parallel"] = parallel,
            ["requests"] = served.Sum(),
            ["handled"] = Interlocked.Read(ref Endpoints.s_handled),
            ["elapsedMs"] = ms,
            ["checksum"] = Interlocked.Read(ref Endpoints.s_checksum).ToString("x16", CultureInfo.InvariantCulture),
        };
        Console.WriteLine("RESULT " + result.ToJsonString());
        return 0;
    }

    static async Task<long> Client(HttpClient client, string url, long deadline)
    {
        long n = 0;
        while (Stopwatch.GetTimestamp() < deadline)
        {
            using var response = await client.GetAsync(url);
            response.EnsureSuccessStatusCode();
            n++;
        }
        return n;
    }
}

public static class Endpoints
{
    public static long s_handled;
    public static long s_checksum;

    public static void Map(WebApplication app)
    {
        app.MapGet("/work", async () =>
        {
            await Task.Yield();
            long v = Spin(2.0);
            Interlocked.Increment(ref s_handled);
            Interlocked.Add(ref s_checksum, v);
            return v.ToString("x16", CultureInfo.InvariantCulture);
        });
    }

    // Spins for about `ms` of wall time, doing arithmetic the JIT cannot drop.
    public static long Spin(double ms)
    {
        long end = Stopwatch.GetTimestamp() + (long)(ms * Stopwatch.Frequency / 1000);
        long x = unchecked((long)0x9E3779B97F4A7C15);
        do
        {
            for (int i = 0; i < 64; i++) x = x * 6364136223846793005 + 1442695040888963407;
        } while (Stopwatch.GetTimestamp() < end);
        return x;
    }
}
