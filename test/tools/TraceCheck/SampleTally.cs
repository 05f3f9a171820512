// Counts SampleProfiler thread samples the way PerfView's stack views do: through TraceEvent's
// TraceEventStackSource over the ThreadSample events, one sample per event. A frame is counted
// exclusive when it is the leaf of a sample and inclusive once per sample that contains it
// (recursion counts once). The pseudo-frames the stack source adds above a stack ("Thread (…)",
// "Process64 …", "BROKEN") are not methods and are left out.

using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.EventPipe;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace Clrscope.Tools.TraceCheck;

internal sealed class SampleTally
{
    private sealed class MethodCount
    {
        public required string Frame;
        public required string Method;
        public required string Module;
        public long Inclusive;
        public long Exclusive;
        public int LastSample = -1;
    }

    private readonly Dictionary<string, MethodCount> _methods = new();
    private readonly SortedDictionary<int, long> _threads = new();
    private long _events;
    private long _managed;
    private long _external;
    private long _error;
    private int _stackSourceSamples;
    private long _unresolvedFrames;
    private long _emptyStacks;
    private string? _firstSampleUtc;
    private double _firstSampleRelMs = double.NaN;

    public static SampleTally Collect(TraceLog log)
    {
        var t = new SampleTally();
        var threadSamples = log.Events.Filter(e => e.ProviderGuid == SampleProfilerTraceEventParser.ProviderGuid && (int)e.ID == 0);
        foreach (TraceEvent e in threadSamples)
        {
            t._events++;
            if (t._firstSampleUtc == null)
            {
                t._firstSampleUtc = e.TimeStamp.ToUniversalTime().ToString("O");
                t._firstSampleRelMs = e.TimeStampRelativeMSec;
            }
            int type = e is ClrThreadSampleTraceData s ? (int)s.Type : -1;
            if (type == (int)ClrThreadSampleType.Managed) t._managed++;
            else if (type == (int)ClrThreadSampleType.External) t._external++;
            else t._error++;
            t._threads[e.ThreadID] = t._threads.GetValueOrDefault(e.ThreadID) + 1;
        }
        var source = new TraceEventStackSource(threadSamples);
        source.ForEach(sample => t.Add(source, sample));
        return t;
    }

    private void Add(TraceEventStackSource source, StackSourceSample sample)
    {
        int index = _stackSourceSamples++;
        bool leaf = true;
        for (var stack = sample.StackIndex; stack != StackSourceCallStackIndex.Invalid; stack = source.GetCallerIndex(stack))
        {
            var frame = source.GetFrameIndex(stack);
            var address = source.GetFrameCodeAddress(frame);
            if (address == CodeAddressIndex.Invalid) continue; // a thread, process or BROKEN pseudo-frame
            var m = Lookup(source, frame, address);
            if (leaf) m.Exclusive++;
            leaf = false;
            if (m.LastSample != index)
            {
                m.LastSample = index;
                m.Inclusive++;
            }
        }
        if (leaf) _emptyStacks++;
    }

    private MethodCount Lookup(TraceEventStackSource source, StackSourceFrameIndex frame, CodeAddressIndex address)
    {
        string name = source.GetFrameName(frame, false);
        if (_methods.TryGetValue(name, out var m)) return m;
        var addresses = source.TraceLog.CodeAddresses;
        var methodIndex = addresses.MethodIndex(address);
        string method = methodIndex == MethodIndex.Invalid ? "" : addresses.Methods.FullMethodName(methodIndex);
        if (methodIndex == MethodIndex.Invalid) _unresolvedFrames++;
        var module = addresses.ModuleFile(address);
        m = new MethodCount { Frame = name, Method = method, Module = module?.FilePath ?? "" };
        _methods.Add(name, m);
        return m;
    }

    public void Write(Utf8JsonWriter json, int top)
    {
        json.WriteNumber("samples", _events);
        json.WriteStartObject("samplesByType");
        json.WriteNumber("managed", _managed);
        json.WriteNumber("external", _external);
        json.WriteNumber("other", _error);
        json.WriteEndObject();
        json.WriteNumber("stackSourceSamples", _stackSourceSamples);
        json.WriteNumber("samplesWithoutFrames", _emptyStacks);
        json.WriteNumber("distinctFrames", _methods.Count);
        json.WriteNumber("unresolvedFrames", _unresolvedFrames);
        if (_firstSampleUtc != null)
        {
            json.WriteString("firstSampleUtc", _firstSampleUtc);
            json.WriteNumber("firstSampleRelMs", _firstSampleRelMs);
        }
        json.WriteStartArray("threads");
        foreach (var (tid, count) in _threads)
        {
            json.WriteStartObject();
            json.WriteNumber("tid", tid);
            json.WriteNumber("samples", count);
            json.WriteEndObject();
        }
        json.WriteEndArray();
        var ordered = _methods.Values
            .OrderByDescending(m => m.Exclusive).ThenByDescending(m => m.Inclusive).ThenBy(m => m.Frame, StringComparer.Ordinal);
        json.WriteStartArray("methods");
        foreach (var m in top > 0 ? ordered.Take(top) : ordered)
        {
            json.WriteStartObject();
            json.WriteString("frame", m.Frame);
            json.WriteString("method", m.Method);
            json.WriteString("module", m.Module);
            json.WriteNumber("exclusive", m.Exclusive);
            json.WriteNumber("inclusive", m.Inclusive);
            json.WriteEndObject();
        }
        json.WriteEndArray();
    }
}
