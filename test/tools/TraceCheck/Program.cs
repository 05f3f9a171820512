// TraceCheck FILE.nettrace|FILE.etlx [--top N] [--gcs] [--requests]
// --gcs: instead, TraceEvent's GC table (GcTable.cs).
// --requests: instead, ASP.NET Core's request events and the start/stop activities TraceEvent
// makes of them (RequestTally.cs).
// Opens the file with TraceEvent's TraceLog (a .nettrace is converted to a temporary .etlx first,
// the way PerfView does) and prints one JSON object: sample counts from TraceEvent's stack source,
// per-method inclusive/exclusive counts, threads, the GC events TraceEvent parsed and the
// allocation, contention and exception events with their top frames.
// Exit 1 with one sentence on stderr when the file cannot be read.

using System.Text.Json;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace Clrscope.Tools.TraceCheck;

public static class Program
{
    public static int Main(string[] args)
    {
        string? path = null;
        int top = 20;
        bool gcs = false;
        bool requests = false;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--top" && i + 1 < args.Length && int.TryParse(args[i + 1], out int n)) { top = n; i++; }
            else if (args[i] == "--gcs") gcs = true;
            else if (args[i] == "--requests") requests = true;
            else if (path == null) path = args[i];
            else return Usage($"unexpected argument '{args[i]}'");
        }
        if (path == null) return Usage("no file given");
        if (!File.Exists(path)) return Fail($"{path} does not exist.");

        string? tempEtlx = null;
        try
        {
            bool isEtlx = path.EndsWith(".etlx", StringComparison.OrdinalIgnoreCase);
            string etlx = path;
            if (!isEtlx)
            {
                tempEtlx = Path.Combine(Path.GetTempPath(), $"tracecheck-{Environment.ProcessId}-{Guid.NewGuid():N}.etlx");
                etlx = TraceLog.CreateFromEventPipeDataFile(path, tempEtlx);
            }
            using var log = new TraceLog(etlx);
            if (gcs)
            {
                using var gcOut = Console.OpenStandardOutput();
                using var gcJson = new Utf8JsonWriter(gcOut, new JsonWriterOptions { Indented = false });
                GcTable.Write(log, gcJson);
                gcJson.Flush();
                gcOut.WriteByte((byte)'\n');
                return 0;
            }
            if (requests)
            {
                var tally = RequestTally.Collect(log);
                using var requestOut = Console.OpenStandardOutput();
                using var requestJson = new Utf8JsonWriter(requestOut, new JsonWriterOptions { Indented = false });
                requestJson.WriteStartObject();
                tally.Write(requestJson);
                requestJson.WriteEndObject();
                requestJson.Flush();
                requestOut.WriteByte((byte)'\n');
                return 0;
            }
            var samples = SampleTally.Collect(log);
            var gc = GcTally.Collect(log);
            var runtimeEvents = EventTally.Collect(log);
            var threadTime = ThreadTimeTally.Collect(log);
            using var stdout = Console.OpenStandardOutput();
            using var json = new Utf8JsonWriter(stdout, new JsonWriterOptions { Indented = false });
            json.WriteStartObject();
            json.WriteString("file", Path.GetFullPath(path));
            json.WriteString("kind", isEtlx ? "etlx" : "nettrace");
            json.WriteNumber("events", log.EventCount);
            json.WriteNumber("eventsLost", log.EventsLost);
            json.WriteNumber("pointerSize", log.PointerSize);
            json.WriteNumber("sampleIntervalMs", log.SampleProfileInterval.TotalMilliseconds);
            json.WriteString("sessionStartUtc", log.SessionStartTime.ToUniversalTime().ToString("O"));
            json.WriteNumber("sessionDurationMs", log.SessionDuration.TotalMilliseconds);
            json.WriteStartArray("processes");
            foreach (var p in log.Processes) json.WriteNumberValue(p.ProcessID);
            json.WriteEndArray();
            samples.Write(json, top);
            gc.Write(json);
            runtimeEvents.Write(json);
            threadTime.Write(json);
            json.WriteEndObject();
            json.Flush();
            stdout.WriteByte((byte)'\n');
            return 0;
        }
        catch (Exception e) // any failure of TraceEvent becomes one sentence, never a stack trace
        {
            return Fail($"TraceEvent could not read {path}: {e.Message}");
        }
        finally
        {
            if (tempEtlx != null) TryDelete(tempEtlx);
        }
    }

    private static void TryDelete(string file)
    {
        try { File.Delete(file); } catch (IOException) { } catch (UnauthorizedAccessException) { }
    }

    private static int Usage(string why)
    {
        Console.Error.WriteLine($"TraceCheck: {why}; usage: TraceCheck FILE.nettrace|FILE.etlx [--top N] [--gcs] [--requests]");
        return 2;
    }

    private static int Fail(string sentence)
    {
        Console.Error.WriteLine(sentence);
        return 1;
    }
}
