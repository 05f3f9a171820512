// PerfView's "Thread Time" view of the SampleProfiler's samples: TraceEvent's
// SampleProfilerThreadTimeComputer, which counts a managed (type 2) sample as CPU and an external
// one as unmanaged-code time (blocked or native), each worth the time until its thread's next sample. Its CPU total is what
// PerfView shows as the CPU of a .nettrace (an estimate: the file has no CPU clock).

using System.Text.Json;
using Microsoft.Diagnostics.Symbols;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace Clrscope.Tools.TraceCheck;

internal sealed class ThreadTimeTally
{
    private double _cpuMs;
    private double _unmanagedMs;
    private long _cpuSamples;

    public static ThreadTimeTally Collect(TraceLog log)
    {
        var t = new ThreadTimeTally();
        using var symbols = new SymbolReader(TextWriter.Null);
        var computer = new SampleProfilerThreadTimeComputer(log, symbols);
        var source = new MutableTraceEventStackSource(log);
        computer.GenerateThreadTimeStacks(source);
        source.ForEach(sample =>
        {
            // The computer adds CPU_TIME or BLOCKED_TIME as the leaf of each sample's stack.
            string leaf = source.GetFrameName(source.GetFrameIndex(sample.StackIndex), false);
            if (leaf == "CPU_TIME") { t._cpuMs += sample.Metric; t._cpuSamples++; }
            else if (leaf == "UNMANAGED_CODE_TIME") t._unmanagedMs += sample.Metric;
        });
        return t;
    }

    public void Write(Utf8JsonWriter json)
    {
        json.WriteStartObject("threadTime");
        json.WriteNumber("cpuMs", Math.Round(_cpuMs, 3));
        json.WriteNumber("cpuSamples", _cpuSamples);
        json.WriteNumber("unmanagedMs", Math.Round(_unmanagedMs, 3));
        json.WriteEndObject();
    }
}
