using System.Text.Json.Nodes;

namespace Clrscope.Targets.Measure;

/// <summary>
/// Runs every shape of Shapes and of its never-measured twin ShapesReference on the same inputs
/// and compares what they did: return values, out/ref results, side effects, exceptions.
/// </summary>
public static class Check
{
    public const int From = -8, To = 120;

    public static JsonObject Run()
    {
        List<string> measured = Trace(reference: false);
        List<string> reference = Trace(reference: true);
        var mismatches = new JsonArray();
        for (int i = 0; i < Math.Max(measured.Count, reference.Count); i++)
        {
            string a = i < measured.Count ? measured[i] : "(missing)";
            string b = i < reference.Count ? reference[i] : "(missing)";
            if (a != b && mismatches.Count < 20) mismatches.Add($"case {i}: measured {a}, reference {b}");
        }
        int n = To - From;
        long recursions = 0;
        for (int x = From; x < To; x++) recursions += Math.Max(1, x & 31);
        return new JsonObject
        {
            ["ok"] = mismatches.Count == 0 && measured.Count == reference.Count,
            ["cases"] = measured.Count,
            ["mismatches"] = mismatches,
            // How often each measured shape was called by one check.
            ["calls"] = new JsonObject
            {
                ["Mixed"] = n, ["Filtered"] = n, ["Pick"] = n, ["MakeBig"] = n, ["Echo"] = 3 * n,
                ["AddLaterAsync"] = n, ["StackSum"] = n, ["Recurse"] = recursions, ["Thrower"] = n, ["Bump"] = 2 * n,
            },
        };
    }

    static string Outcome(Func<string> f)
    {
        try
        {
            return "=" + f();
        }
        catch (Exception e)
        {
            return "!" + e.GetType().Name + ":" + e.Message;
        }
    }

    static List<string> Trace(bool reference)
    {
        var log = new List<string>();
        int finallies = 0;
        for (int x = From; x < To; x++)
        {
            log.Add(Outcome(() =>
            {
                string path;
                int r = reference ? ShapesReference.Mixed(x, ref finallies, out path) : Shapes.Mixed(x, ref finallies, out path);
                return $"{r}/{path}";
            }) + "/" + finallies);
            log.Add(Outcome(() => (reference ? ShapesReference.Filtered(x) : Shapes.Filtered(x)).ToString()));
            log.Add(Outcome(() =>
            {
                int[] values = { 1, 2, 3 };
                int index = Math.Abs(x);
                if (reference) ShapesReference.Pick(values, index) += 5;
                else Shapes.Pick(values, index) += 5;
                return string.Join(",", values);
            }));
            log.Add(Outcome(() =>
            {
                if (reference)
                {
                    ShapesReference.Big b = ShapesReference.MakeBig(x);
                    return $"{b.A}+{b.B}+{b.C}+{b.D}+{b.E}";
                }
                Shapes.Big c = Shapes.MakeBig(x);
                return $"{c.A}+{c.B}+{c.C}+{c.D}+{c.E}";
            }));
            log.Add(Outcome(() =>
            {
                bool n1, n2, n3;
                int i = reference ? ShapesReference.Echo(x, out n1) : Shapes.Echo(x, out n1);
                string? s = reference ? ShapesReference.Echo<string?>(null, out n2) : Shapes.Echo<string?>(null, out n2);
                string t = reference ? ShapesReference.Echo("s" + x, out n3) : Shapes.Echo("s" + x, out n3);
                return $"{i}{n1}{s ?? "null"}{n2}{t}{n3}";
            }));
            log.Add(Outcome(() => (reference ? ShapesReference.AddLaterAsync(x) : Shapes.AddLaterAsync(x)).GetAwaiter().GetResult().ToString()));
            log.Add(Outcome(() => (reference ? ShapesReference.StackSum(x) : Shapes.StackSum(x)).ToString()));
            log.Add(Outcome(() => (reference ? ShapesReference.Recurse(Math.Max(1, x & 31)) : Shapes.Recurse(Math.Max(1, x & 31))).ToString()));
            log.Add(Outcome(() =>
            {
                if (reference) ShapesReference.Thrower(x);
                else Shapes.Thrower(x);
                return "returned";
            }));
            log.Add(Outcome(() =>
            {
                if (reference)
                {
                    var c = new ShapesReference.Counter();
                    c.Bump(x);
                    return $"{c.Bump(2)}/{c.Value}";
                }
                var d = new Shapes.Counter();
                d.Bump(x);
                return $"{d.Bump(2)}/{d.Value}";
            }));
        }
        return log;
    }
}
