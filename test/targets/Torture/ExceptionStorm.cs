using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>exceptions: four threads each throw and catch thousands of exceptions from 20 frames down.</summary>
public static class ExceptionStorm
{
    private sealed class StormException(int value) : Exception("storm")
    {
        public int Value { get; } = value;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Throw(int depth, int value)
    {
        if (depth == 0) throw new StormException(value);
        return Throw(depth - 1, value) + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Storm(int count)
    {
        long sum = 0;
        for (int i = 0; i < count; i++)
        {
            try
            {
                sum += Throw(20, i);
            }
            catch (StormException e)
            {
                sum += e.Value;
            }
        }
        return sum;
    }

    public static JsonObject Run(Options o)
    {
        int perThread = o.Scaled(15000);
        var sums = new long[4];
        var threads = Enumerable.Range(0, 4).Select(i => new Thread(() => sums[i] = Storm(perThread)) { Name = $"storm-{i}" }).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        return new JsonObject { ["thrown"] = 4 * perThread, ["sum"] = sums.Sum() };
    }
}
