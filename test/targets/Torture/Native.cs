using System.Reflection;
using System.Runtime.InteropServices;

namespace Clrscope.Targets.Torture;

/// <summary>
/// P/Invokes into libtorture_helpers.so (native/helpers.c) and libc's dynamic loader. The helpers
/// library is found in the folder scripts/build-torture-native.sh writes (bin/native/ beside bin/out/),
/// or in $TORTURE_NATIVE_DIR.
/// </summary>
internal static partial class Native
{
    private const string Helpers = "torture_helpers";

    public static string Directory { get; } = Environment.GetEnvironmentVariable("TORTURE_NATIVE_DIR") is { Length: > 0 } d
        ? d
        : Path.GetFullPath(Path.Combine(AppContext.BaseDirectory, "..", "native"));

    public static string LibraryPath(string name) => Path.Combine(Directory, $"lib{name}.so");

    static Native()
    {
        NativeLibrary.SetDllImportResolver(typeof(Native).Assembly, Resolve);
    }

    private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? path) =>
        name == Helpers ? NativeLibrary.Load(LibraryPath(Helpers)) : IntPtr.Zero;

    /// <summary>Runs the static constructor (the resolver) before the first P/Invoke of any class.</summary>
    public static void Init() => _ = Directory;

    [LibraryImport(Helpers, EntryPoint = "torture_sigprof_default")] public static partial int SigprofDefault();
    [LibraryImport(Helpers, EntryPoint = "torture_sigprof_ignore")] public static partial int SigprofIgnore();
    [LibraryImport(Helpers, EntryPoint = "torture_sigprof_count")] public static partial int SigprofCount();
    [LibraryImport(Helpers, EntryPoint = "torture_sigprof_disposition")] public static partial int SigprofDisposition();
    [LibraryImport(Helpers, EntryPoint = "torture_sigprof_counts")] public static unsafe partial void SigprofCounts(long* out6);
    [LibraryImport(Helpers, EntryPoint = "torture_itimer_prof")] public static partial int ItimerProf(long usec);
    [LibraryImport(Helpers, EntryPoint = "torture_take_sigurg")] public static partial int TakeSigurg();
    [LibraryImport(Helpers, EntryPoint = "torture_send_sigurg")] public static partial int SendSigurg(int own, int queued);
    [LibraryImport(Helpers, EntryPoint = "torture_sigurg_state")] public static unsafe partial int SigurgState(long* out2);
    [LibraryImport(Helpers, EntryPoint = "torture_block_signals")] public static partial int BlockSignals(int spareRuntime);
    [LibraryImport(Helpers, EntryPoint = "torture_restore_signals")] public static partial int RestoreSignals();
    [LibraryImport(Helpers, EntryPoint = "torture_blocked_count")] public static partial int BlockedCount();
    [LibraryImport(Helpers, EntryPoint = "torture_native_spin")] public static partial ulong NativeSpin(ulong iterations);
    [LibraryImport(Helpers, EntryPoint = "torture_masked_threads")] public static unsafe partial ulong MaskedThreads(int count, ulong iterations, ulong* cpuNs);
    [LibraryImport(Helpers, EntryPoint = "torture_fork_exit")] public static partial int ForkExit(int code, ulong childIterations);
    [LibraryImport(Helpers, EntryPoint = "torture_is_readable")] public static partial int IsReadable(nuint address);
    [LibraryImport(Helpers, EntryPoint = "torture_eh_frame_hdr_of")] public static partial nuint EhFrameHdrOf(nuint address);

    public const int RtldNow = 2;
    [LibraryImport("libc", EntryPoint = "dlopen", StringMarshalling = StringMarshalling.Utf8)] public static partial IntPtr DlOpen(string path, int flags);
    [LibraryImport("libc", EntryPoint = "dlsym", StringMarshalling = StringMarshalling.Utf8)] public static partial IntPtr DlSym(IntPtr handle, string name);
    [LibraryImport("libc", EntryPoint = "dlclose")] public static partial int DlClose(IntPtr handle);
}
