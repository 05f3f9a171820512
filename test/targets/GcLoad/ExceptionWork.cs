using System.Runtime.CompilerServices;

namespace Clrscope.Targets.GcLoad;

/// <summary>
/// Catcher → Guarded → Thrower. Each of the N throws runs exactly one filter (<see cref="Filter"/>, in
/// Catcher's <c>catch … when</c>), one finally (in Guarded) and one catch (in Catcher).
/// </summary>
public static class ExceptionWork
{
    public const string Message = "GcLoad test exception";

    public static long Thrown, Caught, Filters, Finallys;
    /// <summary>AppDomain.FirstChanceException notifications for the whole process (the runtime's own count of throws).</summary>
    public static long FirstChance;

    public static void Install() =>
        AppDomain.CurrentDomain.FirstChanceException += (_, _) => Interlocked.Increment(ref FirstChance);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Catcher(int count)
    {
        for (int i = 0; i < count; i++)
        {
            try
            {
                Guarded(i);
            }
            catch (InvalidOperationException e) when (Filter(e))
            {
                Caught++;
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Guarded(int i)
    {
        try
        {
            Thrower(i);
        }
        finally
        {
            Finallys++;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Thrower(int i)
    {
        Thrown++;
        throw new InvalidOperationException(Message);
    }

    /// <summary>The exception filter: counts itself and always accepts.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool Filter(Exception e)
    {
        Filters++;
        return ReferenceEquals(e.Message, Message) || e.Message == Message;
    }
}
