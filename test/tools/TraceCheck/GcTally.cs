// The runtime's GC events as TraceEvent parsed them: counts per event, and each pause as PerfView
// measures one, from GCSuspendEEStart to GCRestartEEStop, with the generation of any GCStart in it.
// Only pauses with a GC in them are listed: the runtime's own sample profiler suspends the runtime
// for every sample (reason SuspendOther), thousands of times in a dotnet-trace recording.

using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace Clrscope.Tools.TraceCheck;

internal sealed class GcTally
{
    private sealed class Pause
    {
        public double StartMs;
        public double EndMs;
        public int Reason;
        public int Generation = -1;
        public bool Induced;
    }

    private readonly SortedDictionary<string, long> _counts = new(StringComparer.Ordinal);
    private readonly List<Pause> _pauses = new();
    private readonly long[] _generations = new long[3];

    public static GcTally Collect(TraceLog log)
    {
        var t = new GcTally();
        Pause? open = null;
        foreach (TraceEvent e in log.Events.Filter(e => e.ProviderGuid == ClrTraceEventParser.ProviderGuid))
        {
            switch (e)
            {
                case GCSuspendEETraceData s:
                    t.Count("suspendEEStart");
                    open = new Pause { StartMs = e.TimeStampRelativeMSec, Reason = (int)s.Reason };
                    break;
                case GCStartTraceData g:
                    t.Count("gcStart");
                    if (g.Depth >= 0 && g.Depth <= 2) t._generations[g.Depth]++;
                    if (open != null)
                    {
                        open.Generation = Math.Max(open.Generation, g.Depth);
                        open.Induced |= g.Reason is GCReason.Induced or GCReason.InducedNotForced or GCReason.InducedLowMemory or GCReason.InducedCompacting;
                    }
                    break;
                case GCEndTraceData:
                    t.Count("gcEnd");
                    break;
                case GCNoUserDataTraceData when (int)e.ID == 8:
                    t.Count("suspendEEStop");
                    break;
                case GCNoUserDataTraceData when (int)e.ID == 7:
                    t.Count("restartEEStart");
                    break;
                case GCNoUserDataTraceData when (int)e.ID == 3:
                    t.Count("restartEEStop");
                    if (open != null)
                    {
                        open.EndMs = e.TimeStampRelativeMSec;
                        t._pauses.Add(open);
                        open = null;
                    }
                    break;
            }
        }
        return t;
    }

    private void Count(string name) => _counts[name] = _counts.GetValueOrDefault(name) + 1;

    public void Write(Utf8JsonWriter json)
    {
        json.WriteStartObject("gc");
        foreach (var (name, count) in _counts) json.WriteNumber(name, count);
        json.WriteStartArray("generations");
        foreach (long g in _generations) json.WriteNumberValue(g);
        json.WriteEndArray();
        json.WriteNumber("pausesWithoutGc", _pauses.Count(p => p.Generation < 0));
        json.WriteStartArray("pauses");
        foreach (var p in _pauses.Where(p => p.Generation >= 0))
        {
            json.WriteStartObject();
            json.WriteNumber("startMs", p.StartMs);
            json.WriteNumber("durationMs", p.EndMs - p.StartMs);
            json.WriteNumber("reason", p.Reason);
            json.WriteNumber("generation", p.Generation);
            json.WriteBoolean("induced", p.Induced);
            json.WriteEndObject();
        }
        json.WriteEndArray();
        json.WriteEndObject();
    }
}
