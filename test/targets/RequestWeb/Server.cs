using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text.RegularExpressions;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.RequestWeb;

public static class Server
{
    // The server's own count per route pattern ("GET /cpu/{ms}", constraints left out as clrscope
    // names it) and of responses >= 500; POST /shutdown is not counted.
    static readonly ConcurrentDictionary<string, long> s_served = new();
    static long s_errors;

    public static async Task<int> Run()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        var app = builder.Build();
        // Counted after the response, by the endpoint's route pattern, as clrscope names it.
        app.Use(async (context, next) =>
        {
            await next(context);
            if (context.GetEndpoint() is RouteEndpoint e && e.RoutePattern.RawText is string pattern && pattern != "/shutdown")
            {
                string route = Regex.Replace(pattern, @"\{(\w+)(:[^}]*)?\}", "{$1}");
                s_served.AddOrUpdate($"{context.Request.Method} {route}", 1, (_, n) => n + 1);
            }
            if (context.Response.StatusCode >= 500) Interlocked.Increment(ref s_errors);
        });
        app.MapGet("/cpu/{ms:int}", (int ms) => Work.Burn(ms).ToString("x16", CultureInfo.InvariantCulture));
        app.MapGet("/delay/{ms:int}", async (int ms) =>
        {
            await Task.Delay(ms);
            return "waited";
        });
        // CPU after an await: the continuation runs on whichever pool thread the timer hands it
        // to, seldom the one that began the request.
        app.MapGet("/after/{ms:int}", async (int ms) =>
        {
            await Task.Delay(5);
            return Work.BurnAfterAwait(ms).ToString("x16", CultureInfo.InvariantCulture);
        });
        app.MapGet("/block/{ms:int}", (int ms) => Work.BlockOn(ms));
        // Variable cost: every request burns `ms` in Work.Burn, every tenth also 8 × ms in
        // Work.SlowPath, so the slowest tenth are slow because of that one method.
        app.MapGet("/vary/{ms:int}", (int ms) => Work.Vary(ms).ToString("x16", CultureInfo.InvariantCulture));
        app.MapGet("/fail", () => Results.StatusCode(500));
        var lifetime = app.Lifetime;
        app.MapPost("/shutdown", () =>
        {
            lifetime.StopApplication();
            return "bye";
        });
        await app.StartAsync();
        Console.WriteLine($"LISTENING {app.Urls.First()}");
        await app.WaitForShutdownAsync();
        var served = new JsonObject();
        foreach (var (route, n) in s_served.OrderBy(p => p.Key, StringComparer.Ordinal)) served[route] = n;
        Console.WriteLine("RESULT " + new JsonObject
        {
            ["served"] = served,
            ["errors"] = Interlocked.Read(ref s_errors),
            ["cpuMs"] = Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds,
            ["completedWorkItems"] = ThreadPool.CompletedWorkItemCount,
        }.ToJsonString());
        return 0;
    }
}

public static class Work
{
    // Spins for `ms` of wall time in this one method, doing arithmetic the JIT cannot drop.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Burn(int ms)
    {
        long end = Stopwatch.GetTimestamp() + ms * Stopwatch.Frequency / 1000;
        long x = unchecked((long)0x9E3779B97F4A7C15);
        do
        {
            for (int i = 0; i < 64; i++) x = x * 6364136223846793005 + 1442695040888963407;
        } while (Stopwatch.GetTimestamp() < end);
        return x;
    }

    // Burn's spin under a name of its own, for the endpoint that runs it after an await.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long BurnAfterAwait(int ms) => Burn(ms) ^ 1;

    static long s_varied;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Vary(int ms)
    {
        long x = Burn(ms);
        if (Interlocked.Increment(ref s_varied) % 10 == 0) x ^= SlowPath(ms * 8);
        return x;
    }

    // What makes the slow tenth of /vary slow: Burn's spin in a method of its own.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long SlowPath(int ms)
    {
        long end = Stopwatch.GetTimestamp() + ms * Stopwatch.Frequency / 1000;
        long x = 0x2545F4914F6CDD1D;
        do
        {
            for (int i = 0; i < 64; i++) x = x * 2862933555777941757 + 3037000493;
        } while (Stopwatch.GetTimestamp() < end);
        return x;
    }

    // Sync over async: a pool thread blocked on a task's result for `ms`.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string BlockOn(int ms)
    {
        Task.Delay(ms).Wait();
        return "blocked";
    }
}
