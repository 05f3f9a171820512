// TraceCheck FILE --gcs: TraceEvent's own GC table (TraceLoadedDotNetRuntime.GC.GCs, what
// PerfView's GCStats view shows), one JSON row per GC, for comparing clrscope's `report --gcs`
// row by row: Number, Generation, Type, Reason, pause, heap before and after, promoted (bytes,
// from TraceEvent's MB figures and GCHeapStats), and whether TraceEvent saw the GC complete.

using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Analysis.GC;

namespace Clrscope.Tools.TraceCheck;

internal static class GcTable
{
    public static void Write(Microsoft.Diagnostics.Tracing.Etlx.TraceLog log, Utf8JsonWriter json)
    {
        Microsoft.Diagnostics.Tracing.Etlx.TraceLogEventSource source = log.Events.GetSource();
        source.NeedLoadedDotNetRuntimes();
        source.Process();
        json.WriteStartObject();
        json.WriteStartArray("processes");
        foreach (TraceProcess process in source.Processes())
        {
            TraceLoadedDotNetRuntime? runtime = process.LoadedDotNetRuntime();
            if (runtime == null) continue;
            json.WriteStartObject();
            json.WriteNumber("pid", process.ProcessID);
            json.WriteStartArray("gcs");
            foreach (TraceGC gc in runtime.GC.GCs)
            {
                json.WriteStartObject();
                json.WriteNumber("number", gc.Number);
                json.WriteNumber("generation", gc.Generation);
                json.WriteString("type", gc.Type.ToString());
                json.WriteString("reason", gc.Reason.ToString());
                json.WriteNumber("pauseMs", gc.PauseDurationMSec);
                json.WriteNumber("suspendMs", gc.SuspendDurationMSec);
                json.WriteNumber("heapBeforeMB", gc.HeapSizeBeforeMB);
                json.WriteNumber("heapAfterMB", gc.HeapSizeAfterMB);
                json.WriteNumber("promotedMB", gc.PromotedMB);
                if (gc.HeapStats != null)
                {
                    json.WriteNumber("heapAfterBytes", (double)(gc.HeapStats.GenerationSize0 + gc.HeapStats.GenerationSize1 + gc.HeapStats.GenerationSize2 + gc.HeapStats.GenerationSize3 + gc.HeapStats.GenerationSize4));
                    json.WriteNumber("promotedBytes", (double)(gc.HeapStats.TotalPromotedSize0 + gc.HeapStats.TotalPromotedSize1 + gc.HeapStats.TotalPromotedSize2 + gc.HeapStats.TotalPromotedSize3 + gc.HeapStats.TotalPromotedSize4));
                }
                json.WriteBoolean("hasPerHeapHistories", gc.PerHeapHistories != null && gc.PerHeapHistories.Count > 0);
                json.WriteNumber("bgcFinalPauseMs", gc.BGCFinalPauseMSec);
                json.WriteBoolean("complete", gc.IsComplete);
                json.WriteEndObject();
            }
            json.WriteEndArray();
            json.WriteEndObject();
        }
        json.WriteEndArray();
        json.WriteEndObject();
    }
}
