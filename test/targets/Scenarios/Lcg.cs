using System.Diagnostics;
using System.Linq.Expressions;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// lcg: thread "lcg-main" compiles an expression tree (a loop of xorshift steps) into a dynamic
/// method, as ASP.NET Core's minimal APIs and many serializers do, and calls it for --seconds.
/// The runtime names such methods "lambda_method&lt;N&gt;".
/// </summary>
public static class LcgWork
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run(object? state)
    {
        var s = (LcgState)state!;
        Func<long, long> step = Compile();
        long start = Stopwatch.GetTimestamp();
        long acc = 1;
        while (Stopwatch.GetElapsedTime(start) < s.Duration)
        {
            acc = step(acc);
            s.Calls++;
        }
        s.Result = acc;
        ThreadFacts.Record();
    }

    private static Func<long, long> Compile()
    {
        ParameterExpression x = Expression.Parameter(typeof(long), "x");
        ParameterExpression i = Expression.Variable(typeof(int), "i");
        LabelTarget done = Expression.Label(typeof(long));
        BlockExpression body = Expression.Block(
            [i],
            Expression.Assign(i, Expression.Constant(0)),
            Expression.Loop(
                Expression.IfThenElse(
                    Expression.LessThan(i, Expression.Constant(20000)),
                    Expression.Block(
                        Expression.Assign(x, Expression.ExclusiveOr(x, Expression.LeftShift(x, Expression.Constant(13)))),
                        Expression.Assign(x, Expression.ExclusiveOr(x, Expression.RightShift(x, Expression.Constant(7)))),
                        Expression.Assign(x, Expression.ExclusiveOr(x, Expression.LeftShift(x, Expression.Constant(17)))),
                        Expression.PostIncrementAssign(i)),
                    Expression.Break(done, x)),
                done));
        return Expression.Lambda<Func<long, long>>(body, x).Compile();
    }
}

public sealed class LcgState(TimeSpan duration)
{
    public TimeSpan Duration { get; } = duration;
    public long Calls;
    public long Result;
}

internal sealed class LcgScenario(Options o) : Scenario(o)
{
    private LcgState _state = null!;

    public override string Name => "lcg";

    protected override void OnStart()
    {
        _state = new LcgState(Options.Duration);
        StartThread("lcg-main", LcgWork.Run, _state);
    }

    protected override JsonObject Facts() => new() { ["calls"] = _state.Calls, ["result"] = _state.Result };
}
