using Soak.Geometry;

string[] specs = ["circle 0 0 2", "rect 1 1 3 4", "poly 0 0 4 0 4 3", "poly 0 0 2 0 2 2 0 2"];
foreach (var shape in specs.Select(ShapeParser.Parse)) Console.WriteLine(shape.Describe());
var hull = Hull.Of(Hull.Cloud(100_000, 7));
Console.WriteLine($"hull of 100000 points: {hull.Count} vertices, area {new Polygon(hull).Area:F1}");
