// EtlxConverter IN.nettrace OUT.etlx
// Converts with TraceLog.CreateFromEventPipeDataFile, reopens the result to count what it holds
// and prints one JSON line: {"etlx":…,"bytes":…,"events":…,"samples":…,"threads":…,"processes":…,"eventsLost":…}.
// On failure: one sentence on stderr, no partial output file, exit code 1 (2 for a bad command line).

using System.Text.Json;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace Clrscope.Tools.EtlxConverter;

public static class Program
{
    private const string SampleProfilerProvider = "Microsoft-DotNETCore-SampleProfiler";

    public static int Main(string[] args)
    {
        if (args.Length != 2)
        {
            Console.Error.WriteLine("Usage: EtlxConverter IN.nettrace OUT.etlx");
            return 2;
        }
        string input = args[0];
        string output = args[1];
        if (!File.Exists(input)) return Fail($"{input} does not exist.");
        string partial = output + ".partial";
        try
        {
            TraceLog.CreateFromEventPipeDataFile(input, partial);
            File.Move(partial, output, overwrite: true);
            using var log = new TraceLog(output);
            long samples = 0;
            foreach (var counts in log.Stats)
            {
                if (counts.ProviderName == SampleProfilerProvider) samples += counts.Count;
            }
            using var stdout = Console.OpenStandardOutput();
            using (var json = new Utf8JsonWriter(stdout))
            {
                json.WriteStartObject();
                json.WriteString("etlx", Path.GetFullPath(output));
                json.WriteNumber("bytes", new FileInfo(output).Length);
                json.WriteNumber("events", log.EventCount);
                json.WriteNumber("samples", samples);
                json.WriteNumber("threads", log.Threads.Count);
                json.WriteNumber("processes", log.Processes.Count);
                json.WriteNumber("eventsLost", log.EventsLost);
                json.WriteEndObject();
            }
            stdout.WriteByte((byte)'\n');
            return 0;
        }
        catch (Exception e) // any failure of TraceEvent becomes the one sentence, never a stack trace
        {
            TryDelete(partial);
            return Fail($"Could not convert {input} to .etlx: {OneLine(e.Message)}");
        }
    }

    private static string OneLine(string message)
    {
        string text = message.ReplaceLineEndings(" ").Trim();
        return text.EndsWith('.') ? text : text + ".";
    }

    private static void TryDelete(string file)
    {
        try { File.Delete(file); } catch (IOException) { } catch (UnauthorizedAccessException) { }
    }

    private static int Fail(string sentence)
    {
        Console.Error.WriteLine(sentence);
        return 1;
    }
}
