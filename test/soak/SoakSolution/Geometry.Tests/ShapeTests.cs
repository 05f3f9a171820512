using Soak.Geometry;
using Xunit;

namespace Soak.Geometry.Tests;

public class ShapeTests
{
    [Theory]
    [InlineData("circle 0 0 1", Math.PI)]
    [InlineData("rect 0 0 2 3", 6.0)]
    [InlineData("poly 0 0 4 0 4 3", 6.0)]
    [InlineData("poly 0 0 2 0 2 2 0 2", 4.0)]
    [InlineData("poly 0 0 3 0 3 1 1 1 1 3 0 3", 5.0)]
    public void AreaOfParsedShapes(string spec, double area) => Assert.Equal(area, ShapeParser.Parse(spec).Area, 9);

    [Theory]
    [InlineData("rect 0 0 2 3", 10.0)]
    [InlineData("poly 0 0 3 0 3 4", 12.0)]
    public void Perimeter(string spec, double perimeter) => Assert.Equal(perimeter, ShapeParser.Parse(spec).Perimeter, 9);

    [Theory]
    [InlineData("triangle 1 2 3")]
    [InlineData("poly 0 0 1")]
    [InlineData("circle a b c")]
    public void BadShapesAreRefused(string spec) => Assert.Throws<FormatException>(() => ShapeParser.Parse(spec));

    [Fact]
    public void NegativeRadiusIsOutOfRange() => Assert.Throws<ArgumentOutOfRangeException>(() => ShapeParser.Parse("circle 0 0 -1"));

    [Fact]
    public void EmptyIsRefused() => Assert.ThrowsAny<ArgumentException>(() => ShapeParser.Parse("  "));

    [Fact]
    public void RecordsCompareByValue() => Assert.Equal(new Circle(new(1, 2), 3), ShapeParser.Parse("circle 1 2 3"));

    [Fact]
    public async Task ShapesParseInParallel()
    {
        var areas = await Task.WhenAll(Enumerable.Range(1, 64).Select(i => Task.Run(() => ShapeParser.Parse($"rect 0 0 {i} 2").Area)));
        Assert.Equal(Enumerable.Range(1, 64).Sum(i => 2.0 * i), areas.Sum());
    }
}
