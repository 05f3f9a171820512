using Soak.Geometry;
using Xunit;

namespace Soak.Geometry.Tests;

public class HullTests
{
    [Fact]
    public void SquareWithInsidePoints()
    {
        var hull = Hull.Of([new(0, 0), new(2, 0), new(2, 2), new(0, 2), new(1, 1), new(1, 0)]);
        Assert.Equal(4, hull.Count);
        Assert.Equal(4.0, new Polygon(hull).Area, 9);
    }

    [Theory]
    [InlineData(1_000)]
    [InlineData(10_000)]
    [InlineData(200_000)]
    public void CloudHullContainsEveryPoint(int count)
    {
        var cloud = Hull.Cloud(count, (ulong)count).ToList();
        var hull = Hull.Of(cloud);
        for (int i = 0; i < hull.Count; i++)
        {
            Point a = hull[i], b = hull[(i + 1) % hull.Count];
            Assert.All(cloud.Where((_, k) => k % 97 == 0), p => Assert.True((b - a).Cross(p - a) >= -1e-9));
        }
        Assert.InRange(new Polygon(hull).Area, Math.PI * 1000 * 1000 * 0.9, Math.PI * 1000 * 1000);
    }

    [Fact]
    public void CloudIsTheSameEveryTime() => Assert.Equal(Hull.Cloud(500, 3), Hull.Cloud(500, 3));

    [Fact]
    public async Task HullsOnSeveralThreads()
    {
        var counts = await Task.WhenAll(Enumerable.Range(1, 8).Select(seed => Task.Run(() => Hull.Of(Hull.Cloud(20_000, (ulong)seed)).Count)));
        Assert.All(counts, c => Assert.InRange(c, 10, 20_000));
    }
}
