// A program with a known leak, for heap snapshots: a static cache holding exactly N LeakedItem
// objects (each with its own 100-byte payload, so the cache retains more than its own size), K
// StackHeldItem objects alive only through a local variable of a waiting thread, and H
// HandleHeldItem objects alive only through strong GCHandles. The test snapshots it, asks it to
// grow the cache by N more, and snapshots it again. --payload B makes each payload B bytes (100 by
// default): the snapshot benchmark's heap is --items 5000000 --payload 176, 10 M objects, 1.1 GiB.
//
//   LeakHeap --items N [--stack K] [--handles H] [--linger S] [--payload B]
// prints "READY PID items=N" once everything is in place, then reads commands from stdin, one a line:
//   grow   adds N more items to the cache and prints "READY PID items=2N" (and so on)
//   gcinfo prints GCINFO {"index":I,"generations":[{"sizeAfter":S,"fragmentationAfter":F}...]}: the
//          runtime's own account of its last full blocking collection (GC.GetGCMemoryInfo), gen0, gen1, gen2,
//          LOH, POH, to check a snapshot's fragmentation per generation against
//   exit   (or end of input) lets the holder thread go, prints RESULT {"items":..,"stack":K,"handles":H}
//          and exits 0, S seconds after the end of input with --linger S (a program launched by
//          `clrscope heap -- ...`, whose input is empty, stays until its snapshot is taken)
using System.Runtime.InteropServices;

namespace Clrscope.Targets.LeakHeap;

public sealed class LeakedItem
{
    public readonly int Id;
    public readonly byte[] Payload;
    public static int PayloadBytes = 100;
    public LeakedItem(int id) { Id = id; Payload = new byte[PayloadBytes]; }
}

public sealed class StackHeldItem
{
    public readonly long Value;
    public StackHeldItem(long value) { Value = value; }
}

public sealed class HandleHeldItem
{
    public readonly long Value;
    public HandleHeldItem(long value) { Value = value; }
}

public static class LeakCache
{
    // The leak: a static field nothing ever clears.
    public static readonly List<LeakedItem> Items = new();
}

public static class Program
{
    public static int Main(string[] args)
    {
        int items = 0, stack = 0, handles = 0, linger = 0;
        for (int i = 0; i < args.Length; i++)
        {
            string Next() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{args[i]} needs a number");
            switch (args[i])
            {
                case "--items": items = int.Parse(Next()); break;
                case "--stack": stack = int.Parse(Next()); break;
                case "--handles": handles = int.Parse(Next()); break;
                case "--linger": linger = int.Parse(Next()); break;
                case "--payload": LeakedItem.PayloadBytes = int.Parse(Next()); break;
                default:
                    Console.Error.WriteLine($"LeakHeap: unknown argument '{args[i]}'");
                    return 2;
            }
        }
        if (items <= 0)
        {
            Console.Error.WriteLine("usage: LeakHeap --items N [--stack K] [--handles H]");
            return 2;
        }

        Grow(items);

        var release = new ManualResetEventSlim(false);
        var holding = new ManualResetEventSlim(false);
        var holder = new Thread(() => HoldOnStack(stack, holding, release)) { IsBackground = true, Name = "stack-holder" };
        holder.Start();
        holding.Wait();

        var pinned = new GCHandle[handles];
        for (int h = 0; h < handles; h++) pinned[h] = GCHandle.Alloc(new HandleHeldItem(h), GCHandleType.Normal);

        // Whatever the setup left as garbage is gone before anyone looks.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId} items={LeakCache.Items.Count}");

        string? line;
        bool sawExit = false;
        while ((line = Console.ReadLine()) != null)
        {
            line = line.Trim();
            if (line == "exit")
            {
                sawExit = true;
                break;
            }
            if (line == "grow")
            {
                Grow(items);
                GC.Collect();
                Console.WriteLine($"READY {Environment.ProcessId} items={LeakCache.Items.Count}");
            }
            else if (line == "gcinfo")
            {
                var info = GC.GetGCMemoryInfo(GCKind.FullBlocking);
                var gens = new List<string>();
                foreach (var g in info.GenerationInfo) gens.Add($"{{\"sizeAfter\":{g.SizeAfterBytes},\"fragmentationAfter\":{g.FragmentationAfterBytes}}}");
                Console.WriteLine($"GCINFO {{\"index\":{info.Index},\"generations\":[{string.Join(",", gens)}]}}");
            }
            else if (line != "")
            {
                Console.Error.WriteLine($"LeakHeap: unknown command '{line}'");
            }
        }

        if (!sawExit && linger > 0) Thread.Sleep(TimeSpan.FromSeconds(linger));
        release.Set();
        holder.Join();
        foreach (var h in pinned) h.Free();
        Console.WriteLine($"RESULT {{\"items\":{LeakCache.Items.Count},\"stack\":{stack},\"handles\":{handles}}}");
        return 0;
    }

    private static void Grow(int count)
    {
        int start = LeakCache.Items.Count;
        for (int i = 0; i < count; i++) LeakCache.Items.Add(new LeakedItem(start + i));
    }

    // The items live in this frame's local array only; KeepAlive after the wait keeps the JIT from
    // treating the local as dead while the thread waits.
    private static void HoldOnStack(int count, ManualResetEventSlim holding, ManualResetEventSlim release)
    {
        var local = new StackHeldItem[count];
        for (int i = 0; i < count; i++) local[i] = new StackHeldItem(i);
        holding.Set();
        release.Wait();
        GC.KeepAlive(local);
    }
}
