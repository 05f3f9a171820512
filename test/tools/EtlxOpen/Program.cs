// EtlxOpen FILE.etlx: opens the file with the TraceEvent this build references and prints one
// JSON line, {"traceEvent":"3.1.21.0","opened":true,"events":N} or {"traceEvent":…,"opened":false,
// "error":"…"}. Exit 0 either way (the answer is the JSON), 2 for a bad command line.

using System.Text.Json;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace Clrscope.Tools.EtlxOpen;

public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("Usage: EtlxOpen FILE.etlx");
            return 2;
        }
        string version = typeof(TraceLog).Assembly.GetName().Version?.ToString() ?? "unknown";
        var result = new Dictionary<string, object> { ["traceEvent"] = version };
        try
        {
            using var log = new TraceLog(args[0]);
            result["opened"] = true;
            result["events"] = log.EventCount;
        }
        catch (Exception e) // the refusal is the answer, printed as data
        {
            result["opened"] = false;
            result["error"] = e.Message;
        }
        Console.WriteLine(JsonSerializer.Serialize(result));
        return 0;
    }
}
