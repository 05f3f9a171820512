using System.Runtime.CompilerServices;

namespace Clrscope.Targets.Measure;

// The bodies the IL rewriter must wrap without changing what they do: try/catch/finally, a
// switch, loops, a filter, value-type `this`, ref/out parameters, a ref return, a large struct
// return, a generic method, an async kickoff, stackalloc, recursion, a method that only throws.
// ShapesReference.cs is the same code under another name, never measured: Check compares the two.
// Keep the two files identical apart from the class name.
public static class Shapes
{
    public struct Counter
    {
        public int Value;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Bump(int by)
        {
            Value += by;
            return Value;
        }
    }

    public struct Big
    {
        public long A, B, C, D, E;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Mixed(int x, ref int finallies, out string path)
    {
        int acc = 0;
        path = "";
        try
        {
            for (int i = 0; i < (x & 7); i++)
            {
                switch ((x + i) % 5)
                {
                    case 0: acc += i; break;
                    case 1: acc -= 2 * i; break;
                    case 2: path += "c"; continue;
                    case 3: if (x % 11 == 0) throw new ArgumentException("eleven"); acc ^= x; break;
                    default: acc += 100; break;
                }
                if (acc > 1000) return acc;
            }
            if (x % 13 == 0) throw new InvalidOperationException("thirteen");
            path += "t";
        }
        catch (ArgumentException e)
        {
            path += "a" + e.Message.Length;
            acc = -acc;
        }
        finally
        {
            finallies++;
            path += "f";
        }
        if (x % 17 == 0) return acc * 3;
        return acc + path.Length;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Filtered(int x)
    {
        try
        {
            if (x < 0) throw new ArgumentException("negative", nameof(x));
            return x;
        }
        catch (ArgumentException) when (x < -5)
        {
            return -1;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ref int Pick(int[] values, int i) => ref values[i % values.Length];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static Big MakeBig(int seed) => new Big { A = seed, B = seed * 2L, C = seed * 3L, D = seed * 4L, E = seed * 5L };

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T Echo<T>(T value, out bool isNull)
    {
        isNull = value is null;
        return value;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<int> AddLaterAsync(int x)
    {
        if (x % 2 == 0) await Task.Yield();
        return x + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int StackSum(int n)
    {
        Span<int> values = stackalloc int[Math.Max(1, n & 63)];
        for (int i = 0; i < values.Length; i++) values[i] = i * n;
        int sum = 0;
        foreach (int v in values) sum += v;
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Recurse(int n) => n <= 1 ? 1 : n + Recurse(n - 1) % 1000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Thrower(int x) => throw new FormatException("thrower " + x);
}
