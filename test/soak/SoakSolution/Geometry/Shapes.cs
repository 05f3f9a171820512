namespace Soak.Geometry;

public readonly record struct Point(double X, double Y)
{
    public static Point operator +(Point a, Point b) => new(a.X + b.X, a.Y + b.Y);
    public static Point operator -(Point a, Point b) => new(a.X - b.X, a.Y - b.Y);
    public double Cross(Point b) => X * b.Y - Y * b.X;
    public double Length => Math.Sqrt(X * X + Y * Y);
}

public abstract record Shape
{
    public abstract double Area { get; }
    public abstract double Perimeter { get; }
    public virtual string Describe() => $"{GetType().Name} area {Area:F3} perimeter {Perimeter:F3}";
}

public sealed record Circle(Point Centre, double Radius) : Shape
{
    public override double Area => Math.PI * Radius * Radius;
    public override double Perimeter => 2 * Math.PI * Radius;
}

public sealed record Rectangle(Point Corner, double Width, double Height) : Shape
{
    public override double Area => Width * Height;
    public override double Perimeter => 2 * (Width + Height);
}

public sealed record Polygon(IReadOnlyList<Point> Vertices) : Shape
{
    public override double Area
    {
        get
        {
            double twice = 0;
            for (int i = 0; i < Vertices.Count; i++) twice += Vertices[i].Cross(Vertices[(i + 1) % Vertices.Count]);
            return Math.Abs(twice) / 2;
        }
    }

    public override double Perimeter => Vertices.Select((p, i) => (Vertices[(i + 1) % Vertices.Count] - p).Length).Sum();
}

public static class ShapeParser
{
    /// <summary>"circle x y r", "rect x y w h" or "poly x1 y1 x2 y2 ...".</summary>
    public static Shape Parse(string text)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(text);
        string[] parts = text.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        double[] n = parts.Skip(1).Select(p => double.Parse(p, System.Globalization.CultureInfo.InvariantCulture)).ToArray();
        return parts[0] switch
        {
            "circle" when n.Length == 3 => n[2] > 0 ? new Circle(new(n[0], n[1]), n[2]) : throw new ArgumentOutOfRangeException(nameof(text), "radius must be positive"),
            "rect" when n.Length == 4 => new Rectangle(new(n[0], n[1]), n[2], n[3]),
            "poly" when n.Length >= 6 && n.Length % 2 == 0 => new Polygon(n.Chunk(2).Select(c => new Point(c[0], c[1])).ToList()),
            _ => throw new FormatException($"not a shape: '{text}'"),
        };
    }
}
