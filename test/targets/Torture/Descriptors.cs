using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// close-descriptors: what a daemon or a process supervisor does: closes every socket above stderr
/// that it did not open (a profiler's connection among them, should one be loaded; not every
/// descriptor, which a .NET runtime does not survive: native/descriptors.c says why), then makes
/// Unix socket pairs of its own, which take the lowest free numbers, and passes a known byte
/// pattern through them both ways for a couple of seconds, checking that it receives exactly its
/// own bytes, in order, and nothing else. A burner thread keeps a CPU busy throughout, for the
/// recording. It waits for a line on stdin first (a test attaches in the meantime), or goes on at
/// once when stdin is empty. With --scale the rounds scale; the RESULT is counts only.
/// </summary>
public static class Descriptors
{
    private const int Pairs = 4;
    private const int Block = 4096;
    private const int PauseUs = 1000;
    private const int ReopenEvery = 100;
    private static volatile bool s_stop;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Burn()
    {
        ulong reference = Kernel.Mix(11, 400_000);
        int mismatches = 0;
        while (!s_stop)
        {
            if (Kernel.Mix(11, 400_000) != reference) mismatches++;
        }
        return mismatches;
    }

    public static unsafe JsonObject Run(Options o)
    {
        int mismatches = 0;
        var burner = new Thread(() => mismatches = Burn()) { Name = "descriptors-burner" };
        burner.Start();
        // Samples of the burner before the descriptors go, for the recording.
        Thread.Sleep(300);
        Console.ReadLine();
        int closed = Native.CloseSocketsAboveStderr();
        int rounds = o.Scaled(1500);
        long* counts = stackalloc long[6];
        var clock = Stopwatch.StartNew();
        Native.SocketPairs(Pairs, rounds, Block, PauseUs, ReopenEvery, counts);
        double seconds = clock.Elapsed.TotalSeconds;
        s_stop = true;
        burner.Join();
        Program.Fact(new JsonObject { ["socketsClosed"] = closed, ["lowestPairDescriptor"] = counts[5], ["seconds"] = Math.Round(seconds, 2) });
        return new JsonObject
        {
            ["pairs"] = Pairs,
            ["rounds"] = rounds,
            ["bytesReceived"] = counts[0],
            ["bytesWrong"] = counts[1],
            ["bytesNotTheProgramsOwn"] = counts[2],
            ["bytesLost"] = counts[3],
            ["failures"] = counts[4],
            ["closeErrno"] = closed < 0 ? -closed : 0,
            ["burnMismatches"] = mismatches,
        };
    }
}
