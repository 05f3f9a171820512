using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Clrscope.Targets.Scenarios;

/// <summary>
/// async-rethrow: an async service's shape. Thread "service" runs RethrowWork.Serve, which handles
/// --exceptions requests (default 1000) one after the other, each failing in the leaf:
/// Serve → HandleRequest → LoadOrder → QueryStore → OrderStore.Lookup, which throws an
/// OrderNotFoundException. Each exception is thrown once and then rethrown four times on its way
/// up: by ExceptionDispatchInfo.Throw at LoadOrder's await, by LoadOrder's plain <c>throw;</c>,
/// at HandleRequest's await and at Serve's GetResult, where it is caught.
/// </summary>
public static class RethrowWork
{
    public const int RethrowsPerException = 4;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Serve(object? state)
    {
        var s = (RethrowState)state!;
        for (int i = 0; i < s.Count; i++)
        {
            try
            {
                HandleRequest(s, i).GetAwaiter().GetResult();
            }
            catch (OrderNotFoundException)
            {
                s.Caught++;
            }
        }
        ThreadFacts.Record();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<int> HandleRequest(RethrowState s, int id) => await LoadOrder(s, id) + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<int> LoadOrder(RethrowState s, int id)
    {
        try
        {
            return await QueryStore(id);
        }
        catch (OrderNotFoundException)
        {
            s.Logged++;
            // Between the exception's throws: the collection moves it (a gen0 survivor is copied),
            // so the rethrow below must still be known as the same exception.
            if (s.CollectEvery > 0 && (id + 1) % s.CollectEvery == 0)
            {
                GC.Collect(0, GCCollectionMode.Forced, blocking: true, compacting: true);
                s.Collections++;
            }
            throw;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<int> QueryStore(int id)
    {
        await Task.Yield();
        return OrderStore.Lookup(id);
    }
}

public static class OrderStore
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Lookup(int id)
    {
        Interlocked.Increment(ref Thrown);
        throw new OrderNotFoundException(id);
    }

    public static int Thrown;
}

public sealed class OrderNotFoundException(int id) : Exception($"order {id} not found");

public sealed class RethrowState(int count, int collectEvery)
{
    public int Count { get; } = count;
    public int CollectEvery { get; } = collectEvery;
    public int Collections;
    public int Caught;
    public int Logged;
}

internal sealed class AsyncRethrowScenario(Options o) : Scenario(o)
{
    private RethrowState _state = null!;

    public override string Name => "async-rethrow";

    protected override void OnStart()
    {
        _state = new RethrowState(Options.Exceptions, Options.CollectEvery);
        StartThread("service", RethrowWork.Serve, _state);
    }

    protected override JsonObject Facts() => new()
    {
        ["thrown"] = OrderStore.Thrown,
        ["caught"] = _state.Caught,
        ["logged"] = _state.Logged,
        ["collections"] = _state.Collections,
        ["rethrowsEach"] = RethrowWork.RethrowsPerException,
        ["type"] = typeof(OrderNotFoundException).FullName,
    };
}
