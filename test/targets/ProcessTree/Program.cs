// A program that starts .NET child processes, for `clrscope record --children`:
//
//   ProcessTree [--work MS] [--linger S]   the parent: starts `dotnet ProcessTree.dll child alpha`
//                                          and `... child beta`, burns CPU in ParentWork.HashParent
//                                          and waits for both
//   ProcessTree child alpha|beta [--work MS] [--linger S]
//                                          burns CPU in AlphaWork.HashAlpha or BetaWork.HashBeta
//
// Each process prints "pid ROLE PID" on stdout. --linger S: the alpha child sleeps S seconds after
// its work and the parent does not wait for it (a process left running with the profiler loaded,
// as MSBuild nodes are after a build).

using System.Diagnostics;
using Clrscope.Targets.ProcessTree;

var workMs = 1500;
var lingerS = 0;
string? childRole = null;
for (var i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "child" when i + 1 < args.Length: childRole = args[++i]; break;
        case "--work" when i + 1 < args.Length: workMs = int.Parse(args[++i]); break;
        case "--linger" when i + 1 < args.Length: lingerS = int.Parse(args[++i]); break;
        default: Console.Error.WriteLine($"ProcessTree: unknown argument {args[i]}"); return 2;
    }
}

if (childRole is not null)
{
    Console.WriteLine($"pid {childRole} {Environment.ProcessId}");
    Console.Out.Flush();
    var sum = childRole switch
    {
        "alpha" => AlphaWork.HashAlpha(workMs),
        "beta" => BetaWork.HashBeta(workMs),
        _ => throw new ArgumentException($"unknown child role {childRole}"),
    };
    if (childRole == "alpha" && lingerS > 0) Thread.Sleep(lingerS * 1000);
    return sum == 42 ? 3 : 0;
}

Console.WriteLine($"pid parent {Environment.ProcessId}");
Console.Out.Flush();
var dll = typeof(ParentWork).Assembly.Location;
var host = Environment.ProcessPath ?? "dotnet";
Process Start(string role)
{
    // The children's output comes through the parent, so a lingering child holds none of the
    // parent's own stdout or stderr (whoever waits for those to close does not wait for it).
    var info = new ProcessStartInfo(host) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
    // Run through the dotnet host with the dll, as `dotnet build` starts its nodes.
    if (!Path.GetFileNameWithoutExtension(host).Equals("ProcessTree", StringComparison.OrdinalIgnoreCase)) info.ArgumentList.Add(dll);
    foreach (var a in new[] { "child", role, "--work", workMs.ToString(), "--linger", lingerS.ToString() }) info.ArgumentList.Add(a);
    var child = Process.Start(info) ?? throw new InvalidOperationException($"could not start the {role} child");
    Console.WriteLine(child.StandardOutput.ReadLine());
    Console.Out.Flush();
    child.ErrorDataReceived += (_, e) => { if (e.Data is not null) Console.Error.WriteLine(e.Data); };
    child.BeginErrorReadLine();
    return child;
}
var alpha = Start("alpha");
var beta = Start("beta");
var own = ParentWork.HashParent(workMs);
if (lingerS == 0) alpha.WaitForExit();
beta.WaitForExit();
if (lingerS == 0 && alpha.ExitCode != 0) return 4;
return beta.ExitCode != 0 ? 4 : own == 42 ? 3 : 0;
