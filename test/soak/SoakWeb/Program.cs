using System.Collections.Concurrent;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;

namespace Clrscope.Soak.Web;

/// <summary>
/// SoakWeb: an ASP.NET Core minimal API for the harmlessness soak (scripts/soak.mjs). It listens on
/// a free loopback port, prints "LISTENING url", and serves what a load generator asks until
/// POST /shutdown; then it prints what it served (per route and status) and the exceptions its
/// middleware caught, in an order that depends only on the requests, and exits 0.
///
/// Endpoints: text, JSON out and in, CPU (hashing, regular expressions), async chains with a fan-out,
/// and failures of several kinds (a null dereference among them) that a middleware turns into JSON
/// error responses.
/// </summary>
public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        if (args.Length != 0)
        {
            Console.Error.WriteLine("SoakWeb: takes no arguments");
            return 2;
        }
        var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = [] });
        // Console logging would print timings and trace ids: the output must depend on the requests only.
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        var app = builder.Build();
        var stats = new Stats();
        app.Use(stats.Count);
        app.Use(Failures.Map(stats));
        Endpoints.Map(app);
        await app.StartAsync();
        Console.WriteLine($"LISTENING {app.Urls.First()}");
        await app.WaitForShutdownAsync();
        foreach (string line in stats.Report()) Console.WriteLine(line);
        return 0;
    }
}

public sealed record Item(int Id, string Name, long PriceCents, string[] Tags);
public sealed record OrderLine(string Sku, int Quantity, long UnitCents);
public sealed record Order(string Customer, List<OrderLine> Lines);
public sealed record OrderReceipt(string Customer, int Lines, long TotalCents, string Digest);

public static class Endpoints
{
    public static void Map(WebApplication app)
    {
        app.MapGet("/hello", () => "hello from SoakWeb");

        app.MapGet("/items/{n:int}", (int n) => Enumerable.Range(0, Math.Clamp(n, 0, 500))
            .Select(i => new Item(i, $"item-{i:D4}", 99 + i * 37L, [.. Enumerable.Range(0, i % 4).Select(t => $"tag{t}")]))
            .ToList());

        app.MapPost("/orders", (Order order) =>
        {
            if (order.Lines.Count == 0) throw new ArgumentException("an order needs lines");
            long total = 0;
            var text = new StringBuilder(order.Customer);
            foreach (var line in order.Lines)
            {
                if (line.Quantity <= 0) throw new ArgumentOutOfRangeException(nameof(order), $"quantity {line.Quantity} of {line.Sku}");
                total = checked(total + line.Quantity * line.UnitCents);
                text.Append('|').Append(line.Sku).Append('x').Append(line.Quantity);
            }
            string digest = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(text.ToString())))[..16];
            return new OrderReceipt(order.Customer, order.Lines.Count, total, digest);
        });

        app.MapGet("/hash/{rounds:int}", (int rounds) =>
        {
            byte[] data = Encoding.UTF8.GetBytes("soak");
            for (int i = 0; i < Math.Clamp(rounds, 1, 100_000); i++) data = SHA256.HashData(data);
            return Convert.ToHexString(data);
        });

        app.MapGet("/regex/{n:int}", (int n) =>
        {
            var text = new StringBuilder();
            for (int i = 0; i < Math.Clamp(n, 1, 5000); i++) text.Append(CultureInfo.InvariantCulture, $"user{i}@host{i % 7}.example key={i * 31 % 1000}; ");
            var matches = Patterns.Email().Matches(text.ToString());
            int keys = Patterns.Key().Matches(text.ToString()).Sum(m => int.Parse(m.Groups["v"].Value, CultureInfo.InvariantCulture));
            string hosts = string.Join(",", matches.Select(m => m.Groups["host"].Value).Distinct().Order(StringComparer.Ordinal));
            return $"{matches.Count} {keys} {hosts}";
        });

        app.MapGet("/async/{depth:int}", async (int depth) =>
        {
            long sum = await Chain.Run(Math.Clamp(depth, 1, 12));
            return new { depth, sum };
        });

        app.MapGet("/fail/{kind}", (string kind) => Failures.Throw(kind));

        app.MapPost("/shutdown", (IHostApplicationLifetime lifetime) =>
        {
            lifetime.StopApplication();
            return "stopping";
        });
    }
}

public static partial class Patterns
{
    [GeneratedRegex(@"(?<user>\w+)@(?<host>[a-z0-9]+)\.example")]
    public static partial Regex Email();

    // Interpreted, not generated: both regex engines run.
    private static readonly Regex KeyPattern = new(@"key=(?<v>\d+);", RegexOptions.None);
    public static Regex Key() => KeyPattern;
}

public static class Chain
{
    /// <summary>An async call chain `depth` deep, each level awaiting a yield, a short delay and a fan-out of two.</summary>
    public static async Task<long> Run(int depth)
    {
        await Task.Yield();
        if (depth == 0) return 1;
        if (depth % 3 == 0)
        {
            await Task.Delay(1);
            long[] both = await Task.WhenAll(Run(depth - 1), Leaf(depth).AsTask());
            return both[0] + both[1];
        }
        return depth + await Run(depth - 1);
    }

    private static async ValueTask<long> Leaf(int n)
    {
        await Task.Yield();
        long x = 0;
        for (int i = 0; i < 2000 * n; i++) x += i % 7;
        return x;
    }
}

public sealed class SoakException(string message, Exception inner) : Exception(message, inner);

public static class Failures
{
    public static string Throw(string kind) => kind switch
    {
        "invalid" => throw new InvalidOperationException("the operation is not valid here"),
        "key" => new Dictionary<string, string> { ["a"] = "b" }[kind],
        "format" => int.Parse("twelve", CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture),
        "null" => NullDereference(null),
        "deep" => Deep(30),
        _ => $"no failure called {kind}",
    };

    // A real null dereference: the runtime turns the fault into a NullReferenceException.
    private static string NullDereference(string? text) => text!.Length.ToString(CultureInfo.InvariantCulture);

    private static string Deep(int n)
    {
        if (n == 0) throw new InvalidDataException("thirty frames down");
        try
        {
            return Deep(n - 1);
        }
        catch (InvalidDataException e) when (n == 15)
        {
            throw new SoakException("wrapped halfway up", e);
        }
    }

    /// <summary>The middleware: every exception becomes a JSON error with a status chosen by its type.</summary>
    public static Func<HttpContext, RequestDelegate, Task> Map(Stats stats) => async (context, next) =>
    {
        try
        {
            await next(context);
        }
        catch (Exception e) when (!context.Response.HasStarted)
        {
            stats.Caught(e);
            context.Response.StatusCode = e switch
            {
                ArgumentException or FormatException or BadHttpRequestException => 400,
                KeyNotFoundException => 404,
                _ => 500,
            };
            await context.Response.WriteAsJsonAsync(new { error = e.GetType().Name, message = e.Message, inner = e.InnerException?.GetType().Name });
        }
    };
}

public sealed class Stats
{
    private readonly ConcurrentDictionary<string, int> served = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, int> caught = new(StringComparer.Ordinal);

    public async Task Count(HttpContext context, RequestDelegate next)
    {
        try
        {
            await next(context);
        }
        finally
        {
            string route = (context.GetEndpoint() as RouteEndpoint)?.RoutePattern.RawText ?? context.Request.Path.Value ?? "?";
            served.AddOrUpdate($"{context.Request.Method} {route} {context.Response.StatusCode}", 1, (_, n) => n + 1);
        }
    }

    public void Caught(Exception e) => caught.AddOrUpdate(e.GetType().FullName ?? "?", 1, (_, n) => n + 1);

    public IEnumerable<string> Report()
    {
        foreach (var (key, n) in served.OrderBy(p => p.Key, StringComparer.Ordinal)) yield return $"SERVED {key} {n}";
        foreach (var (key, n) in caught.OrderBy(p => p.Key, StringComparer.Ordinal)) yield return $"CAUGHT {key} {n}";
    }
}
