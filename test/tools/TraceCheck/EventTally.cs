// The runtime's allocation, contention and exception events as TraceEvent's ClrTraceEventParser
// parses them (GCAllocationTick, ContentionStart/Stop, ExceptionStart = ExceptionThrown_V1): counts,
// per type name (and for exceptions per ExceptionMessage within each type), and the top frame TraceLog resolves for each event's stack (the method name of
// the innermost frame with a method; "" when the event has no stack). What PerfView's GC Heap
// Alloc, contention and exception views are built from.

using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace Clrscope.Tools.TraceCheck;

internal sealed class EventTally
{
    private sealed class TypeTotal
    {
        public long Events;
        public double Amount;
    }

    private sealed class Kind
    {
        public long Events;
        public long WithStack;
        public readonly SortedDictionary<string, TypeTotal> ByType = new(StringComparer.Ordinal);
        public readonly SortedDictionary<string, long> TopFrames = new(StringComparer.Ordinal);
        public readonly SortedDictionary<int, long> Versions = new();

        public void Add(TraceEvent e, string type, double amount)
        {
            Events++;
            Versions[e.Version] = Versions.GetValueOrDefault(e.Version) + 1;
            if (!ByType.TryGetValue(type, out var t)) ByType.Add(type, t = new TypeTotal());
            t.Events++;
            t.Amount += amount;
            string top = TopFrame(e);
            if (top.Length > 0) WithStack++;
            TopFrames[top] = TopFrames.GetValueOrDefault(top) + 1;
        }

        public void Write(Utf8JsonWriter json, string name, string? amountName)
        {
            json.WriteStartObject(name);
            json.WriteNumber("events", Events);
            json.WriteNumber("withStack", WithStack);
            json.WriteStartObject("versions");
            foreach (var (v, n) in Versions) json.WriteNumber(v.ToString(System.Globalization.CultureInfo.InvariantCulture), n);
            json.WriteEndObject();
            json.WriteStartObject("byType");
            foreach (var (type, t) in ByType)
            {
                json.WriteStartObject(type);
                json.WriteNumber("events", t.Events);
                if (amountName != null) json.WriteNumber(amountName, t.Amount);
                json.WriteEndObject();
            }
            json.WriteEndObject();
            json.WriteStartObject("topFrames");
            foreach (var (frame, n) in TopFrames) json.WriteNumber(frame, n);
            json.WriteEndObject();
            json.WriteEndObject();
        }
    }

    private readonly Kind _allocations = new();
    private readonly Kind _contentionStarts = new();
    private readonly Kind _contentionStops = new();
    private readonly Kind _exceptions = new();
    private double _contentionDurationNs;
    private readonly SortedDictionary<string, long> _allocationKinds = new(StringComparer.Ordinal);
    private long _allocationObjectBytes;
    private readonly SortedDictionary<string, SortedDictionary<string, long>> _exceptionMessages = new(StringComparer.Ordinal);

    public static EventTally Collect(TraceLog log)
    {
        var t = new EventTally();
        foreach (TraceEvent e in log.Events.Filter(e => e.ProviderGuid == ClrTraceEventParser.ProviderGuid))
        {
            switch (e)
            {
                case GCAllocationTickTraceData a:
                    t._allocations.Add(e, a.TypeName, a.AllocationAmount64);
                    t._allocationKinds[a.AllocationKind.ToString()] = t._allocationKinds.GetValueOrDefault(a.AllocationKind.ToString()) + 1;
                    t._allocationObjectBytes += a.ObjectSize;
                    break;
                case ContentionStartTraceData s:
                    t._contentionStarts.Add(e, s.ContentionFlags.ToString(), 1);
                    break;
                case ContentionStopTraceData s:
                    t._contentionStops.Add(e, s.ContentionFlags.ToString(), s.DurationNs);
                    t._contentionDurationNs += s.DurationNs;
                    break;
                case ExceptionTraceData x:
                    t._exceptions.Add(e, x.ExceptionType, 1);
                    if (!t._exceptionMessages.TryGetValue(x.ExceptionType, out var messages))
                        t._exceptionMessages.Add(x.ExceptionType, messages = new SortedDictionary<string, long>(StringComparer.Ordinal));
                    messages[x.ExceptionMessage] = messages.GetValueOrDefault(x.ExceptionMessage) + 1;
                    break;
            }
        }
        return t;
    }

    /** The method of the innermost frame TraceLog can name; "" without a stack. */
    private static string TopFrame(TraceEvent e)
    {
        for (var stack = e.CallStack(); stack != null; stack = stack.Caller)
        {
            string name = stack.CodeAddress.FullMethodName;
            if (!string.IsNullOrEmpty(name)) return name;
        }
        return "";
    }

    public void Write(Utf8JsonWriter json)
    {
        json.WriteStartObject("runtimeEvents");
        _allocations.Write(json, "allocationTicks", "amount64");
        json.WriteStartObject("allocationKinds");
        foreach (var (k, n) in _allocationKinds) json.WriteNumber(k, n);
        json.WriteEndObject();
        json.WriteNumber("allocationObjectBytes", _allocationObjectBytes);
        _contentionStarts.Write(json, "contentionStarts", null);
        _contentionStops.Write(json, "contentionStops", "durationNs");
        json.WriteNumber("contentionDurationNs", _contentionDurationNs);
        _exceptions.Write(json, "exceptions", null);
        json.WriteStartObject("exceptionMessages");
        foreach (var (type, messages) in _exceptionMessages)
        {
            json.WriteStartObject(type);
            foreach (var (message, n) in messages) json.WriteNumber(message, n);
            json.WriteEndObject();
        }
        json.WriteEndObject();
        json.WriteEndObject();
    }
}
