using System.Runtime.CompilerServices;

namespace Clrscope.Targets.Measure;

/// <summary>
/// The methods whose calls the tests count. A and B are small enough for the JIT to inline them
/// into the callers' loops (once tiered up), so measuring them exactly needs their inliners
/// compiled again; C throws on every fifth call; D sleeps 20 ms.
/// </summary>
public static class Work
{
    public static int A(int x) => x + 1;

    public static T B<T>(T value) => value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int C(int i)
    {
        if (i % 5 == 0) throw new InvalidOperationException("C refuses multiples of five");
        return i * 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void D() => Thread.Sleep(20);
}

/// <summary>A method without IL (abstract): measuring it is refused, with the reason.</summary>
public interface ISized
{
    int Size();
}

/// <summary>The loops that call Work: one round is A x10,000, B x3,000, C x500 (100 throw), D x50.</summary>
public static class Round
{
    public const int ACalls = 10_000, BIntCalls = 1_000, BStringCalls = 2_000, CCalls = 500, DCalls = 50;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long CallA(int n)
    {
        long sum = 0;
        for (int i = 0; i < n; i++) sum += Work.A(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long CallB(int ints, int strings)
    {
        long sum = 0;
        for (int i = 0; i < ints; i++) sum += Work.B(i);
        string s = "b";
        for (int i = 0; i < strings; i++) sum += Work.B(s).Length;
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallC(int n)
    {
        int thrown = 0;
        for (int i = 0; i < n; i++)
        {
            try
            {
                Work.C(i);
            }
            catch (InvalidOperationException)
            {
                thrown++;
            }
        }
        return thrown;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void CallD(int n)
    {
        for (int i = 0; i < n; i++) Work.D();
    }

    public static (long Sum, int Thrown) Run()
    {
        long sum = CallA(ACalls) + CallB(BIntCalls, BStringCalls);
        int thrown = CallC(CCalls);
        CallD(DCalls);
        return (sum, thrown);
    }

    /// <summary>
    /// Gets the loops compiled the way a long-running program has them: tiered up, with A and B
    /// inlined. With DOTNET_TC_CallCountingDelayMs=0 a few hundred calls and a pause do it.
    /// </summary>
    public static void WarmUp()
    {
        for (int pass = 0; pass < 4; pass++)
        {
            for (int i = 0; i < 60; i++)
            {
                CallA(100);
                CallB(10, 10);
            }
            Thread.Sleep(150);
        }
    }
}
