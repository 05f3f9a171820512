namespace Soak.Geometry;

public static class Hull
{
    /// <summary>Andrew's monotone chain: the convex hull, counter-clockwise, without collinear points.</summary>
    public static List<Point> Of(IEnumerable<Point> points)
    {
        var p = points.Distinct().OrderBy(q => q.X).ThenBy(q => q.Y).ToList();
        if (p.Count < 3) return p;
        var hull = new List<Point>(2 * p.Count);
        foreach (var q in p) Push(hull, q, 2);
        int lower = hull.Count + 1;
        for (int i = p.Count - 2; i >= 0; i--) Push(hull, p[i], lower);
        hull.RemoveAt(hull.Count - 1);
        return hull;
    }

    private static void Push(List<Point> hull, Point q, int floor)
    {
        while (hull.Count >= floor && (hull[^1] - hull[^2]).Cross(q - hull[^2]) <= 0) hull.RemoveAt(hull.Count - 1);
        hull.Add(q);
    }

    /// <summary>A fixed cloud of points (a linear congruential generator), the same on every run.</summary>
    public static IEnumerable<Point> Cloud(int count, ulong seed)
    {
        ulong s = seed;
        for (int i = 0; i < count; i++)
        {
            s = s * 6364136223846793005UL + 1442695040888963407UL;
            double a = (s >> 11) / (double)(1UL << 53) * 2 * Math.PI;
            s = s * 6364136223846793005UL + 1442695040888963407UL;
            double r = Math.Sqrt((s >> 11) / (double)(1UL << 53)) * 1000;
            yield return new Point(Math.Round(r * Math.Cos(a), 3), Math.Round(r * Math.Sin(a), 3));
        }
    }
}
