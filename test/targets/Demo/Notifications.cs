using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Text;

namespace Clrscope.Targets.Demo;

/// <summary>Thread "notifier": blocks on a queue and formats an e-mail for each message.</summary>
public static class Notifications
{
    public static long Sent;

    private static readonly BlockingCollection<string> s_queue = new(boundedCapacity: 1000);

    public static void Enqueue(string message) => s_queue.TryAdd(message);

    public static void Complete() => s_queue.CompleteAdding();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void SendLoop(object? state)
    {
        foreach (string message in s_queue.GetConsumingEnumerable())
            Send(message);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Send(string message)
    {
        var mail = new StringBuilder();
        mail.Append("To: warehouse@example.invalid\nSubject: order update\n\n").Append(message).Append('\n');
        _ = mail.ToString().GetHashCode();
        Interlocked.Increment(ref Sent);
    }
}
