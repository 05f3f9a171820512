using System.Reflection;
using System.Runtime.CompilerServices;

namespace Clrscope.Targets.GcLoad;

/// <summary>
/// --load-assemblies: Assembly.Load of four shared-framework assemblies that a console program does not load
/// on its own. They are real implementation assemblies (not type-forwarding facades), have no dependency that is
/// not already loaded, and nothing is called in them, so each Load adds exactly one assembly.
/// </summary>
public static class AssemblyWork
{
    public static readonly string[] Names =
        ["System.Formats.Tar", "System.Web.HttpUtility", "System.Formats.Asn1", "System.Threading.Channels"];

    public static readonly List<string> NewlyLoaded = [];
    public static readonly List<string> AlreadyLoaded = [];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Load()
    {
        foreach (string name in Names)
        {
            if (NewlyLoaded.Contains(name) || AlreadyLoaded.Contains(name)) continue; // later rounds
            bool wasLoaded = AppDomain.CurrentDomain.GetAssemblies().Any(a => a.GetName().Name == name);
            Assembly.Load(new AssemblyName(name));
            (wasLoaded ? AlreadyLoaded : NewlyLoaded).Add(name);
        }
    }
}
