using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// masked-threads: four native threads born with every signal blocked spin in native code for
/// about a second and a half each (--scale scales it) and end; the capture signal never reaches
/// them. FACT maskedCpuMs: the CPU they used, by their own clocks.
/// </summary>
public static class MaskedThreads
{
    public static unsafe JsonObject Run(Options o)
    {
        ulong cpuNs = 0;
        ulong checksum = Native.MaskedThreads(4, (ulong)o.Scaled(400_000_000), &cpuNs);
        Program.Fact(new JsonObject { ["maskedCpuMs"] = Math.Round(cpuNs / 1e6, 1) });
        return new JsonObject { ["threads"] = 4, ["checksum"] = checksum.ToString("x16"), ["started"] = cpuNs != 0 };
    }
}
