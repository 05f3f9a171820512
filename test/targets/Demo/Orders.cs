namespace Clrscope.Targets.Demo;

public sealed record OrderLine(string Sku, string Product, int Quantity, double UnitPrice);

public sealed class Order
{
    public int Id { get; init; }
    public string Customer { get; init; } = "";
    public string Region { get; init; } = "";
    public DateTime PlacedUtc { get; init; }
    public List<OrderLine> Lines { get; init; } = [];
    public double Subtotal { get; set; }
    public double Discount { get; set; }
    public double Tax { get; set; }
    public double Total { get; set; }
    public string Status { get; set; } = "new";
}

/// <summary>Makes fake orders from a seeded Random, so a given worker always sees the same orders.</summary>
public static class OrderSource
{
    private static readonly DateTime Epoch = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private static readonly (string Sku, string Product, double Price)[] Catalog =
    [
        ("TEA-001", "Green tea, 100 g", 4.50),
        ("TEA-002", "Black tea, 250 g", 7.90),
        ("CUP-010", "Ceramic cup", 12.00),
        ("POT-020", "Cast-iron teapot", 49.00),
        ("FIL-030", "Paper filters (x100)", 3.20),
        ("KET-040", "Electric kettle", 39.99),
        ("HON-050", "Acacia honey, 500 g", 9.75),
        ("BIS-060", "Almond biscuits", 5.10),
    ];

    private static readonly string[] Customers = ["ada", "grace", "linus", "barbara", "ken", "margaret", "dennis", "frances"];
    public static readonly string[] Regions = ["EU", "US", "UK", "CH", "JP"];

    public static List<Order> NextBatch(Random random, int count, ref int nextId)
    {
        var batch = new List<Order>(count);
        for (int i = 0; i < count; i++)
        {
            int id = nextId++;
            var lines = new List<OrderLine>();
            int lineCount = 1 + random.Next(6);
            for (int l = 0; l < lineCount; l++)
            {
                var item = Catalog[random.Next(Catalog.Length)];
                lines.Add(new OrderLine(item.Sku, item.Product, 1 + random.Next(12), item.Price));
            }
            batch.Add(new Order
            {
                Id = id,
                Customer = Customers[random.Next(Customers.Length)],
                Region = Regions[random.Next(Regions.Length)],
                PlacedUtc = Epoch.AddMinutes(id),
                Lines = lines,
            });
        }
        return batch;
    }
}
