using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// exceptions: thread "exceptions" runs ExceptionWork.Catcher, which calls ExceptionWork.Thrower
/// --exceptions times (default 1000); each call throws an InvalidOperationException caught in Catcher.
/// </summary>
public static class ExceptionWork
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Catcher(object? state)
    {
        var s = (ExceptionState)state!;
        for (int i = 0; i < s.Count; i++)
        {
            try
            {
                Thrower(i);
            }
            catch (InvalidOperationException)
            {
                s.Caught++;
            }
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Thrower(int i) =>
        throw new InvalidOperationException($"clrscope test exception {i}");
}

public sealed class ExceptionState(int count)
{
    public int Count { get; } = count;
    public int Caught;
}

internal sealed class ExceptionsScenario(Options o) : Scenario(o)
{
    private ExceptionState _state = null!;

    public override string Name => "exceptions";

    protected override void OnStart()
    {
        _state = new ExceptionState(Options.Exceptions);
        StartThread("exceptions", ExceptionWork.Catcher, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["thrown"] = _state.Count,
        ["caught"] = _state.Caught,
        ["type"] = typeof(InvalidOperationException).FullName,
    };
}
