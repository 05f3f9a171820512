using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;

namespace Clrscope.Targets.Demo;

public sealed class WorkerState(int index, CancellationToken stop)
{
    public int Index { get; } = index;
    public CancellationToken Stop { get; } = stop;
    public Random Random { get; } = new(1000 + index);
    public int NextId = index * 10_000_000 + 1;
}

/// <summary>
/// The fake order pipeline. Each "order-worker-N" thread loops: PriceOrders (CPU-heavy math),
/// Inventory.ReserveStock (contended SemaphoreSlim), SerializeOrders (System.Text.Json: allocations, GC),
/// Notifications.Enqueue, then a short pause.
/// </summary>
public static class OrderService
{
    public const int BatchSize = 25;
    public const int PauseMs = 12;

    public static long Processed;
    public static long Batches;
    public static long Rejected;
    public static long SerializedBytes;
    public static long PriceTicks;
    public static long ReserveTicks;
    public static long SerializeTicks;

    private static readonly JsonSerializerOptions s_json = new(JsonSerializerDefaults.Web) { WriteIndented = false };

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object? state)
    {
        var w = (WorkerState)state!;
        while (!w.Stop.IsCancellationRequested)
        {
            long t0 = Stopwatch.GetTimestamp();
            List<Order> batch = OrderSource.NextBatch(w.Random, BatchSize, ref w.NextId);
            PriceOrders(batch);
            long t1 = Stopwatch.GetTimestamp();
            Inventory.ReserveStock(batch);
            long t2 = Stopwatch.GetTimestamp();
            string json = SerializeOrders(batch);
            VerifyRoundTrip(json, batch.Count);
            long t3 = Stopwatch.GetTimestamp();
            Interlocked.Add(ref PriceTicks, t1 - t0);
            Interlocked.Add(ref ReserveTicks, t2 - t1);
            Interlocked.Add(ref SerializeTicks, t3 - t2);
            Notifications.Enqueue($"batch of {batch.Count} orders from order-worker-{w.Index}, {json.Length} bytes");
            Interlocked.Add(ref Processed, batch.Count);
            Interlocked.Increment(ref Batches);
            Metrics.RecordBatch(Stopwatch.GetElapsedTime(t0).TotalMilliseconds);
            Thread.Sleep(PauseMs);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PriceOrders(List<Order> batch)
    {
        foreach (Order order in batch)
        {
            try
            {
                ValidateOrder(order);
            }
            catch (InvalidOperationException)
            {
                order.Status = "rejected";
                Interlocked.Increment(ref Rejected);
                continue;
            }
            double subtotal = 0;
            foreach (OrderLine line in order.Lines) subtotal += line.Quantity * line.UnitPrice;
            order.Subtotal = Math.Round(subtotal, 2);
            order.Discount = ComputeDiscount(order);
            order.Tax = ApplyTax(order.Region, order.Subtotal - order.Discount);
            order.Total = Math.Round(order.Subtotal - order.Discount + order.Tax, 2);
            order.Status = "priced";
        }
    }

    /// <summary>Every 97th order fails the credit check (a thrown and caught exception).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void ValidateOrder(Order order)
    {
        if (order.Id % 97 == 0)
            throw new InvalidOperationException($"order {order.Id}: credit check failed for {order.Customer}");
    }

    /// <summary>Volume discount: integrates a smooth price-elasticity curve per line (Simpson's rule). The hot spot.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double ComputeDiscount(Order order)
    {
        const int Steps = 3000;
        double discount = 0;
        foreach (OrderLine line in order.Lines)
        {
            double a = 0, b = line.Quantity, h = (b - a) / Steps, sum = 0;
            for (int i = 0; i <= Steps; i++)
            {
                double q = a + i * h;
                double f = Math.Exp(-q / 18.0) * Math.Sqrt(1 + q) / (1 + Math.Log(1 + line.UnitPrice));
                sum += (i == 0 || i == Steps) ? f : (i % 2 == 1 ? 4 * f : 2 * f);
            }
            double rate = Math.Min(0.25, sum * h / 3 / 40.0);
            discount += rate * line.Quantity * line.UnitPrice;
        }
        return Math.Round(discount, 2);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double ApplyTax(string region, double amount)
    {
        double rate = region switch
        {
            "EU" => 0.21,
            "UK" => 0.20,
            "CH" => 0.081,
            "JP" => 0.10,
            _ => 0.0725,
        };
        return Math.Round(amount * rate, 2);
    }

    /// <summary>Parses the JSON back into orders and checks the count: more allocations, so the GC has work.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void VerifyRoundTrip(string json, int expected)
    {
        List<Order>? copy = JsonSerializer.Deserialize<List<Order>>(json, s_json);
        if (copy is null || copy.Count != expected)
            throw new InvalidDataException($"round trip lost orders: {copy?.Count} of {expected}");
    }

    /// <summary>JSON for the batch plus a plain-text receipt per order: lots of short-lived strings.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string SerializeOrders(List<Order> batch)
    {
        string json = JsonSerializer.Serialize(batch, s_json);
        var receipts = new StringBuilder();
        foreach (Order order in batch)
        {
            receipts.Append("Order #").Append(order.Id).Append(" for ").Append(order.Customer).Append('\n');
            foreach (OrderLine line in order.Lines)
                receipts.Append("  ").Append(line.Quantity).Append(" x ").Append(line.Product)
                    .Append(" @ ").Append(line.UnitPrice.ToString("F2")).Append('\n');
            receipts.Append("  total ").Append(order.Total.ToString("F2")).Append(' ').Append(order.Status).Append('\n');
        }
        Interlocked.Add(ref SerializedBytes, json.Length + receipts.Length);
        return json;
    }
}
