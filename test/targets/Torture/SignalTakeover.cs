using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Torture;

/// <summary>
/// signal-takeover: a library takes SIGURG over while a profiler may be using it, the way a Go
/// c-shared library does: its handler counts the SIGURGs the program raises at itself and passes
/// every other one on to the handler it replaced. Driven from stdin, so that a test can attach
/// and detach between the steps: "take" installs the handler (answered by TAKEN), "finish" raises
/// 50 SIGURGs and queues 50 more (which go on to the replaced handler, long after a detach),
/// then the RESULT says how many of its own the handler saw and who owns SIGURG at the end. A
/// burner thread keeps a CPU busy throughout, for the recording.
/// </summary>
public static class SignalTakeover
{
    private const int Own = 50;
    private const int Queued = 50;
    private static volatile bool s_stop;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Burn()
    {
        ulong reference = Kernel.Mix(7, 400_000);
        int mismatches = 0;
        while (!s_stop)
        {
            if (Kernel.Mix(7, 400_000) != reference) mismatches++;
        }
        return mismatches;
    }

    public static unsafe JsonObject Run(Options o)
    {
        int mismatches = 0;
        var burner = new Thread(() => mismatches = Burn()) { Name = "takeover-burner" };
        burner.Start();
        int takeErrno = -1, sendErrno = -1;
        string? line;
        while ((line = Console.ReadLine()) != null)
        {
            if (line == "take")
            {
                takeErrno = Native.TakeSigurg();
                Console.WriteLine("TAKEN");
            }
            else if (line == "finish")
            {
                sendErrno = Native.SendSigurg(Own, Queued);
                break;
            }
        }
        s_stop = true;
        burner.Join();
        long* counts = stackalloc long[2];
        int owner = Native.SigurgState(counts);
        Program.Fact(new JsonObject { ["passedOn"] = counts[1] });
        string[] owners = ["default", "ignore", "own-handler", "someone-else"];
        return new JsonObject
        {
            ["takeErrno"] = takeErrno,
            ["sendErrno"] = sendErrno,
            ["ownSignalsSeen"] = counts[0],
            ["ownerAtEnd"] = owner is >= 0 and < 4 ? owners[owner] : $"error {owner}",
            ["burnMismatches"] = mismatches,
        };
    }
}
