using System.Runtime.CompilerServices;

namespace Clrscope.Targets.Demo;

/// <summary>
/// Stock levels behind one SemaphoreSlim: order workers and the "stock-poller" thread queue up in
/// Inventory.WaitForStock. The poller sleeps (Thread.Sleep) between polls and sometimes sees a
/// supplier timeout (a thrown and caught TimeoutException).
/// </summary>
public static class Inventory
{
    public const int PollIntervalMs = 250;

    public static long SupplierTimeouts;
    public static long Restocks;
    public static long Reservations;

    private static readonly SemaphoreSlim s_stockGate = new(1, 1);
    private static readonly Dictionary<string, int> s_stock = new(StringComparer.Ordinal);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void ReserveStock(List<Order> batch)
    {
        WaitForStock();
        try
        {
            WriteReservation(batch);
        }
        finally
        {
            s_stockGate.Release();
        }
    }

    public static long Waits;

    /// <summary>Blocks on the stock gate. The increment after Wait keeps the JIT from making Wait a tail call,
    /// so this frame stays on the stack while the thread waits.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WaitForStock()
    {
        s_stockGate.Wait();
        Interlocked.Increment(ref Waits);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WriteReservation(List<Order> batch)
    {
        Thread.Sleep(2); // the "database" round trip, while holding the gate (first, so it is not a tail call)
        foreach (Order order in batch)
        {
            if (order.Status != "priced") continue;
            foreach (OrderLine line in order.Lines)
                s_stock[line.Sku] = s_stock.GetValueOrDefault(line.Sku, 1000) - line.Quantity;
            Reservations++;
        }
    }

    /// <summary>Body of thread "stock-poller".</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PollSupplier(object? state)
    {
        var stop = (CancellationToken)state!;
        int poll = 0;
        while (!stop.IsCancellationRequested)
        {
            Thread.Sleep(PollIntervalMs);
            try
            {
                RestockFromSupplier(poll++);
            }
            catch (TimeoutException)
            {
                Interlocked.Increment(ref SupplierTimeouts);
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void RestockFromSupplier(int poll)
    {
        WaitForStock();
        try
        {
            if (poll % 7 == 3) throw new TimeoutException($"supplier did not answer poll {poll}");
            foreach (string sku in s_stock.Keys.ToList())
                if (s_stock[sku] < 500) s_stock[sku] += 1000;
            Thread.Sleep(15); // holding the gate: the order workers wait in WaitForStock meanwhile
            Interlocked.Increment(ref Restocks);
        }
        finally
        {
            s_stockGate.Release();
        }
    }
}
