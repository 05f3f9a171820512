using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// dynamic-code: code that comes and goes. 200 DynamicMethods (LCG), each called 40 times and
/// dropped (collected), then 25 collectible AssemblyLoadContexts, each loading a copy of this
/// program, running <see cref="AlcPayload.Compute"/> from the copy, and unloading.
/// </summary>
public static class DynamicCode
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong InvokeLcg(Func<ulong, ulong> f, ulong x) => f(x);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong RunLcg(int methods)
    {
        MethodInfo mix = typeof(Kernel).GetMethod(nameof(Kernel.Mix))!;
        ulong sum = 0;
        for (int m = 0; m < methods; m++)
        {
            // lcg_m(x) => Kernel.Mix(x, 20000 + m)
            var dm = new DynamicMethod($"lcg_{m}", typeof(ulong), [typeof(ulong)], typeof(DynamicCode).Module);
            ILGenerator il = dm.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I8, 20_000L + m);
            il.Emit(OpCodes.Call, mix);
            il.Emit(OpCodes.Ret);
            var f = dm.CreateDelegate<Func<ulong, ulong>>();
            for (int i = 0; i < 40; i++) sum += InvokeLcg(f, (ulong)i);
            if (m % 50 == 49) GC.Collect();
        }
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (ulong Result, WeakReference Context) RunInContext(int i)
    {
        var alc = new AssemblyLoadContext($"torture-{i}", isCollectible: true);
        Assembly copy = alc.LoadFromAssemblyPath(typeof(DynamicCode).Assembly.Location);
        MethodInfo compute = copy.GetType(typeof(AlcPayload).FullName!)!.GetMethod(nameof(AlcPayload.Compute))!;
        var result = (ulong)compute.Invoke(null, [(ulong)i])!;
        alc.Unload();
        return (result, new WeakReference(alc));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static (ulong Sum, int Unloaded) RunContexts(int contexts)
    {
        ulong sum = 0;
        int unloaded = 0;
        for (int i = 0; i < contexts; i++)
        {
            (ulong r, WeakReference alc) = RunInContext(i);
            sum += r;
            for (int tries = 0; tries < 20 && alc.IsAlive; tries++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            if (!alc.IsAlive) unloaded++;
        }
        return (sum, unloaded);
    }

    public static JsonObject Run(Options o)
    {
        int methods = o.Scaled(200), contexts = o.Scaled(25);
        ulong lcg = RunLcg(methods);
        (ulong alcSum, int unloaded) = RunContexts(contexts);
        return new JsonObject
        {
            ["lcgMethods"] = methods,
            ["lcgChecksum"] = lcg.ToString("x16"),
            ["contexts"] = contexts,
            ["contextsUnloaded"] = unloaded,
            ["contextChecksum"] = alcSum.ToString("x16"),
        };
    }
}

/// <summary>Runs inside a collectible AssemblyLoadContext's copy of this assembly.</summary>
public static class AlcPayload
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Compute(ulong seed)
    {
        ulong sum = 0;
        for (int r = 0; r < 12; r++) sum += Kernel.Mix(seed + (ulong)r, 1_000_000);
        return sum;
    }
}
