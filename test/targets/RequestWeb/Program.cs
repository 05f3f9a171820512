using System.Globalization;

namespace Clrscope.Targets.RequestWeb;

/// <summary>
/// RequestWeb serve
///   An ASP.NET Core minimal API with endpoints of known cost (Endpoints below). Listens on a free
///   loopback port, prints "LISTENING url", serves until POST /shutdown, then prints
///   RESULT {"served":{"GET /cpu/{ms}":N,...},"errors":N,"cpuMs":C,"completedWorkItems":W} (its own
///   count per route pattern, the process's CPU time, the thread pool's completed work items) and
///   exits 0.
/// RequestWeb load --url URL [--seconds S] [--parallel P] [--paths /cpu/10,/delay/40,...] [--close] [--http2] [--shutdown]
///   The load generator: P loops request the paths round-robin for S seconds (with --close each on
///   a connection of its own, closed after its response; with --http2 as streams of HTTP/2 without
///   TLS, for a server started with Kestrel__EndpointDefaults__Protocols=Http2; with --shutdown it
///   then stops the server) and print
///   RESULT {"sent":N,"paths":{"/cpu/10":{"count","p50Ms","p90Ms","p99Ms","maxMs","meanMs"},...}},
///   latencies as the client measured them (send to last byte read).
/// </summary>
public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        if (args.Length >= 1 && args[0] == "serve" && args.Length == 1) return await Server.Run();
        if (args.Length >= 1 && args[0] == "load") return await Load.Run(args.AsSpan(1).ToArray());
        Console.Error.WriteLine("RequestWeb: usage: RequestWeb serve | RequestWeb load --url URL [--seconds S] [--parallel P] [--paths P1,P2,...] [--close] [--http2] [--shutdown]");
        return 2;
    }

    internal static double ParseDouble(string s) => double.Parse(s, NumberStyles.Float, CultureInfo.InvariantCulture);
}
