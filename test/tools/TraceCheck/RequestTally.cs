// ASP.NET Core's request events (provider Microsoft.AspNetCore.Hosting, RequestStart 3 and
// RequestStop 4) as TraceEvent reads them, and what its start/stop machinery makes of them:
// - "hosting": the events, their opcodes and provider Guid as TraceEvent resolved them, starts per
//   endpoint (method + " " + path), and each start paired with the stop of the same ActivityId
//   (duration in ns from TraceEvent's timestamps);
// - "activities": TraceEvent's StartStopActivityComputer over the same events (what PerfView's
//   activity views are built from): each activity's name, activity path and duration;
// - "threadTime": PerfView's "Thread Time (with StartStop Activities)" (SampleProfilerThreadTimeComputer,
//   which groups by start/stop activity by default): CPU samples and ms under each activity.

using System.Text.Json;
using Microsoft.Diagnostics.Symbols;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Session;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace Clrscope.Tools.TraceCheck;

internal sealed class RequestTally
{
    private const string HostingProvider = "Microsoft.AspNetCore.Hosting";

    private sealed class Pair
    {
        public string Activity = "";
        public string Endpoint = "";
        public int StartTid;
        public int StopTid;
        public double StartMs;
        public double StopMs = double.NaN;
    }

    private sealed class ActivitySeen
    {
        public string Name = "";
        public string TaskName = "";
        public string Path = "";
        public double DurationMs = double.NaN;
        public bool Nested;
    }

    private sealed class CpuUnder
    {
        public long Samples;
        public double Ms;
    }

    private Guid _providerGuid;
    private long _starts;
    private long _stops;
    private long _startsWithActivityPath;
    private readonly SortedDictionary<string, long> _opcodes = new(StringComparer.Ordinal);
    private readonly SortedDictionary<string, long> _startsByEndpoint = new(StringComparer.Ordinal);
    private readonly Dictionary<Guid, Pair> _pairsById = new();
    private readonly List<Pair> _pairs = new();
    private readonly List<ActivitySeen> _activities = new();
    private readonly Dictionary<StartStopActivity, ActivitySeen> _activityOf = new();
    private readonly SortedDictionary<string, CpuUnder> _cpuByActivity = new(StringComparer.Ordinal);
    private readonly CpuUnder _cpuOutside = new();

    public static RequestTally Collect(TraceLog log)
    {
        var t = new RequestTally();
        t.ReadEvents(log);
        t.ReadThreadTime(log);
        return t;
    }

    private void ReadEvents(TraceLog log)
    {
        var source = log.Events.GetSource();
        using var symbols = new SymbolReader(TextWriter.Null);
        var tasks = new ActivityComputer(source, symbols);
        var startStop = new StartStopActivityComputer(source, tasks);
        startStop.Start += (activity, data) =>
        {
            if (data.ProviderName != HostingProvider) return;
            var seen = new ActivitySeen
            {
                Name = activity.Name,
                TaskName = activity.TaskName,
                Path = StartStopActivityComputer.ActivityPathString(activity.ActivityID),
                Nested = activity.Creator != null,
            };
            _activities.Add(seen);
            _activityOf[activity] = seen;
        };
        startStop.Stop += (activity, data) =>
        {
            if (_activityOf.TryGetValue(activity, out var seen)) seen.DurationMs = activity.DurationMSec;
        };
        source.Dynamic.All += data =>
        {
            if (data.ProviderName != HostingProvider) return;
            _providerGuid = data.ProviderGuid;
            string key = $"{(int)data.ID}:{data.Opcode}";
            _opcodes[key] = _opcodes.GetValueOrDefault(key) + 1;
            Guid id = data.ActivityID;
            if ((int)data.ID == 3)
            {
                _starts++;
                if (StartStopActivityComputer.IsActivityPath(id, data.ProcessID)) _startsWithActivityPath++;
                string endpoint = $"{data.PayloadByName("method")} {data.PayloadByName("path")}";
                _startsByEndpoint[endpoint] = _startsByEndpoint.GetValueOrDefault(endpoint) + 1;
                var pair = new Pair
                {
                    Activity = StartStopActivityComputer.ActivityPathString(id),
                    Endpoint = endpoint,
                    StartTid = data.ThreadID,
                    StartMs = data.TimeStampRelativeMSec,
                };
                _pairsById[id] = pair;
                _pairs.Add(pair);
            }
            else if ((int)data.ID == 4)
            {
                _stops++;
                if (_pairsById.Remove(id, out var pair))
                {
                    pair.StopTid = data.ThreadID;
                    pair.StopMs = data.TimeStampRelativeMSec;
                }
            }
        };
        source.Process();
    }

    private void ReadThreadTime(TraceLog log)
    {
        using var symbols = new SymbolReader(TextWriter.Null);
        var computer = new SampleProfilerThreadTimeComputer(log, symbols) { GroupByStartStopActivity = true };
        var stacks = new MutableTraceEventStackSource(log);
        computer.GenerateThreadTimeStacks(stacks);
        stacks.ForEach(sample =>
        {
            var index = sample.StackIndex;
            if (stacks.GetFrameName(stacks.GetFrameIndex(index), false) != "CPU_TIME") return;
            // The innermost activity frame between the leaf and the process.
            string? activity = null;
            for (; index != StackSourceCallStackIndex.Invalid && activity == null; index = stacks.GetCallerIndex(index))
            {
                string name = stacks.GetFrameName(stacks.GetFrameIndex(index), false);
                if (name.StartsWith("Activity ", StringComparison.Ordinal)) activity = name;
            }
            var under = activity == null ? _cpuOutside : (_cpuByActivity.TryGetValue(activity, out var u) ? u : _cpuByActivity[activity] = new CpuUnder());
            under.Samples++;
            under.Ms += sample.Metric;
        });
    }

    public void Write(Utf8JsonWriter json)
    {
        json.WriteStartObject("hosting");
        json.WriteString("providerGuid", _providerGuid.ToString());
        json.WriteString("expectedProviderGuid", TraceEventProviders.GetEventSourceGuidFromName(HostingProvider).ToString());
        json.WriteNumber("starts", _starts);
        json.WriteNumber("stops", _stops);
        json.WriteNumber("startsWithActivityPath", _startsWithActivityPath);
        json.WriteStartObject("opcodes");
        foreach (var (k, n) in _opcodes) json.WriteNumber(k, n);
        json.WriteEndObject();
        json.WriteStartObject("startsByEndpoint");
        foreach (var (k, n) in _startsByEndpoint) json.WriteNumber(k, n);
        json.WriteEndObject();
        json.WriteStartArray("pairs");
        foreach (var p in _pairs)
        {
            json.WriteStartObject();
            json.WriteString("activity", p.Activity);
            json.WriteString("endpoint", p.Endpoint);
            json.WriteNumber("startTid", p.StartTid);
            json.WriteNumber("startMs", p.StartMs);
            if (!double.IsNaN(p.StopMs))
            {
                json.WriteNumber("stopTid", p.StopTid);
                json.WriteNumber("durationNs", Math.Round((p.StopMs - p.StartMs) * 1e6));
            }
            json.WriteEndObject();
        }
        json.WriteEndArray();
        json.WriteEndObject();

        json.WriteStartArray("activities");
        foreach (var a in _activities)
        {
            json.WriteStartObject();
            json.WriteString("name", a.Name);
            json.WriteString("taskName", a.TaskName);
            json.WriteString("path", a.Path);
            json.WriteBoolean("nested", a.Nested);
            if (!double.IsNaN(a.DurationMs)) json.WriteNumber("durationMs", a.DurationMs);
            json.WriteEndObject();
        }
        json.WriteEndArray();

        json.WriteStartObject("threadTime");
        json.WriteStartObject("byActivity");
        foreach (var (name, u) in _cpuByActivity)
        {
            json.WriteStartObject(name);
            json.WriteNumber("cpuSamples", u.Samples);
            json.WriteNumber("cpuMs", Math.Round(u.Ms, 3));
            json.WriteEndObject();
        }
        json.WriteEndObject();
        json.WriteNumber("outsideCpuSamples", _cpuOutside.Samples);
        json.WriteNumber("outsideCpuMs", Math.Round(_cpuOutside.Ms, 3));
        json.WriteEndObject();
    }
}
