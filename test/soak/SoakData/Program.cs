using System.Globalization;
using Microsoft.Data.Sqlite;
using Microsoft.EntityFrameworkCore;

namespace Clrscope.Soak.Data;

/// <summary>
/// SoakData --db FILE [--orders N] [--rounds R]: an EF Core + SQLite program for the harmlessness
/// soak (scripts/soak.mjs). It creates the database afresh, inserts products, customers and orders
/// in transactions (one of them rolled back, one insert refused by a unique index and caught), runs
/// R rounds of async queries (grouping, joins, includes, a compiled query, streaming, raw SQL,
/// paging, four contexts at once), bulk updates and deletes, and prints a summary that depends only
/// on its arguments. SOAK_START_DELAY_MS, when set, makes it wait that long first (so that a
/// profiler can be attached before the work starts). Exits 0.
/// </summary>
public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        string? db = null;
        int orders = 3000, rounds = 6;
        for (int i = 0; i < args.Length; i++)
        {
            bool ok = i + 1 < args.Length;
            switch (args[i])
            {
                case "--db" when ok: db = args[++i]; break;
                case "--orders" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int o) && o is >= 10 and <= 1_000_000: orders = o; i++; break;
                case "--rounds" when ok && int.TryParse(args[i + 1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int r) && r is >= 1 and <= 1000: rounds = r; i++; break;
                default:
                    Console.Error.WriteLine($"SoakData: bad argument '{args[i]}'; usage: SoakData --db FILE [--orders N] [--rounds R]");
                    return 2;
            }
        }
        if (db is null)
        {
            Console.Error.WriteLine("SoakData: --db FILE is required");
            return 2;
        }
        if (int.TryParse(Environment.GetEnvironmentVariable("SOAK_START_DELAY_MS"), NumberStyles.Integer, CultureInfo.InvariantCulture, out int delay) && delay > 0)
            await Task.Delay(delay);

        var options = new DbContextOptionsBuilder<Shop>().UseSqlite($"Data Source={db};Pooling=true").Options;
        await Populate.Run(options, orders);
        List<string>? first = null;
        for (int round = 0; round < rounds; round++)
        {
            var lines = await Queries.Run(options);
            // Every round reads the same data: print the first round's results, and whether the others agree.
            if (first is null)
            {
                first = lines;
                foreach (string line in lines) Console.WriteLine(line);
            }
            else Console.WriteLine($"round {round}: {(lines.SequenceEqual(first) ? "same" : "DIFFERENT")}");
        }
        foreach (string line in await Changes.Run(options)) Console.WriteLine(line);
        SqliteConnection.ClearAllPools();
        return 0;
    }
}

public enum OrderStatus { Placed, Paid, Shipped, Cancelled }

public sealed class Product
{
    public int Id { get; set; }
    public required string Sku { get; set; }
    public required string Name { get; set; }
    public required string Category { get; set; }
    public long PriceCents { get; set; }
}

public sealed class Customer
{
    public int Id { get; set; }
    public required string Name { get; set; }
    public required string Email { get; set; }
    public required string City { get; set; }
    public List<Order> Orders { get; set; } = [];
}

public sealed class Order
{
    public int Id { get; set; }
    public int CustomerId { get; set; }
    public Customer? Customer { get; set; }
    public int Number { get; set; }
    public int PlacedDay { get; set; }
    public OrderStatus Status { get; set; }
    public List<OrderLine> Lines { get; set; } = [];
}

public sealed class OrderLine
{
    public int Id { get; set; }
    public int OrderId { get; set; }
    public int ProductId { get; set; }
    public Product? Product { get; set; }
    public int Quantity { get; set; }
    public long UnitCents { get; set; }
}

public sealed class Shop(DbContextOptions<Shop> options) : DbContext(options)
{
    public DbSet<Product> Products => Set<Product>();
    public DbSet<Customer> Customers => Set<Customer>();
    public DbSet<Order> Orders => Set<Order>();
    public DbSet<OrderLine> Lines => Set<OrderLine>();

    protected override void OnModelCreating(ModelBuilder model)
    {
        model.Entity<Product>().HasIndex(p => p.Sku).IsUnique();
        model.Entity<Customer>().HasIndex(c => c.Email).IsUnique();
        model.Entity<Order>().HasIndex(o => o.Number).IsUnique();
        model.Entity<Order>().HasIndex(o => new { o.CustomerId, o.PlacedDay });
        model.Entity<Order>().Property(o => o.Status).HasConversion<string>();
    }
}

/// <summary>A fixed pseudo-random sequence (a linear congruential generator): the same data on every run.</summary>
public sealed class Sequence(ulong seed)
{
    private ulong state = seed;
    public int Next(int bound)
    {
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        return (int)((state >> 33) % (ulong)bound);
    }
}

public static class Populate
{
    private static readonly string[] Categories = ["books", "garden", "kitchen", "music", "tools", "toys"];
    private static readonly string[] Cities = ["Lyon", "Porto", "Graz", "Turku", "Ghent", "Brno", "Cork"];

    public static async Task Run(DbContextOptions<Shop> options, int orders)
    {
        var rng = new Sequence(2026);
        await using (var shop = new Shop(options))
        {
            await shop.Database.EnsureDeletedAsync();
            await shop.Database.EnsureCreatedAsync();
            shop.Products.AddRange(Enumerable.Range(0, 400).Select(i => new Product
            {
                Sku = $"SKU-{i:D5}",
                Name = $"Product {i}",
                Category = Categories[i % Categories.Length],
                PriceCents = 150 + rng.Next(20_000),
            }));
            await shop.SaveChangesAsync();
        }

        // Customers in batches, each batch its own transaction.
        for (int batch = 0; batch < 6; batch++)
        {
            await using var shop = new Shop(options);
            await using var tx = await shop.Database.BeginTransactionAsync();
            for (int i = batch * 100; i < (batch + 1) * 100; i++)
                shop.Customers.Add(new Customer { Name = $"Customer {i}", Email = $"c{i}@shop.example", City = Cities[rng.Next(Cities.Length)] });
            await shop.SaveChangesAsync();
            await tx.CommitAsync();
        }

        int number = 1;
        for (int done = 0; done < orders; done += 250)
        {
            await using var shop = new Shop(options);
            await using var tx = await shop.Database.BeginTransactionAsync();
            for (int i = done; i < Math.Min(orders, done + 250); i++) shop.Orders.Add(NewOrder(rng, number++));
            await shop.SaveChangesAsync();
            await tx.CommitAsync();
        }

        // A transaction rolled back: none of its orders may remain.
        await using (var shop = new Shop(options))
        {
            await using var tx = await shop.Database.BeginTransactionAsync();
            for (int i = 0; i < 50; i++) shop.Orders.Add(NewOrder(rng, 1_000_000 + i));
            await shop.SaveChangesAsync();
            await tx.RollbackAsync();
        }

        // An insert the unique index refuses, caught.
        await using (var shop = new Shop(options))
        {
            shop.Customers.Add(new Customer { Name = "Duplicate", Email = "c7@shop.example", City = "Lyon" });
            try
            {
                await shop.SaveChangesAsync();
                Console.WriteLine("duplicate email: ACCEPTED (wrong)");
            }
            catch (DbUpdateException e) when (e.InnerException is SqliteException { SqliteErrorCode: 19 })
            {
                Console.WriteLine("duplicate email: refused (SQLite error 19, constraint)");
            }
        }
    }

    private static Order NewOrder(Sequence rng, int number)
    {
        var order = new Order
        {
            CustomerId = 1 + rng.Next(600),
            Number = number,
            PlacedDay = rng.Next(365),
            Status = (OrderStatus)rng.Next(4),
        };
        int lines = 1 + rng.Next(5);
        for (int l = 0; l < lines; l++)
            order.Lines.Add(new OrderLine { ProductId = 1 + rng.Next(400), Quantity = 1 + rng.Next(9), UnitCents = 100 + rng.Next(15_000) });
        return order;
    }
}

public static class Queries
{
    private static readonly Func<Shop, int, IAsyncEnumerable<Order>> OrdersOf =
        EF.CompileAsyncQuery<Shop, int, Order>((Shop shop, int customerId) => shop.Orders.Where(o => o.CustomerId == customerId).OrderBy(o => o.Number));

    public static async Task<List<string>> Run(DbContextOptions<Shop> options)
    {
        var output = new List<string>();
        await using var shop = new Shop(options);

        output.Add($"counts: {await shop.Products.CountAsync()} products, {await shop.Customers.CountAsync()} customers, {await shop.Orders.CountAsync()} orders, {await shop.Lines.CountAsync()} lines");
        output.Add($"any order over 1000000: {await shop.Orders.AnyAsync(o => o.Number >= 1_000_000)}");
        output.Add($"latest day {await shop.Orders.MaxAsync(o => o.PlacedDay)}, mean quantity {await shop.Lines.AverageAsync(l => (double)l.Quantity):F4}");

        var top = await shop.Lines
            .GroupBy(l => l.OrderId)
            .Select(g => new { OrderId = g.Key, Total = g.Sum(l => l.Quantity * l.UnitCents) })
            .Join(shop.Orders, t => t.OrderId, o => o.Id, (t, o) => new { o.CustomerId, t.Total })
            .GroupBy(x => x.CustomerId)
            .Select(g => new { CustomerId = g.Key, Revenue = g.Sum(x => x.Total), Orders = g.Count() })
            .OrderByDescending(x => x.Revenue).ThenBy(x => x.CustomerId)
            .Take(5)
            .ToListAsync();
        output.Add("top customers: " + string.Join(", ", top.Select(t => $"{t.CustomerId}:{t.Revenue}/{t.Orders}")));

        var byCategory = await shop.Lines
            .Join(shop.Products, l => l.ProductId, p => p.Id, (l, p) => new { p.Category, l.Quantity })
            .GroupBy(x => x.Category)
            .Select(g => new { Category = g.Key, Units = g.Sum(x => x.Quantity) })
            .OrderBy(x => x.Category)
            .ToListAsync();
        output.Add("units by category: " + string.Join(", ", byCategory.Select(c => $"{c.Category}={c.Units}")));

        var cityOrders = await shop.Orders.AsNoTracking()
            .Include(o => o.Customer).Include(o => o.Lines).ThenInclude(l => l.Product)
            .Where(o => o.Customer!.City == "Graz" && o.Status != OrderStatus.Cancelled)
            .OrderBy(o => o.Number)
            .ToListAsync();
        long cityCheck = cityOrders.Aggregate(17L, (h, o) => h * 31 + o.Number + o.Lines.Sum(l => l.Quantity * (long)l.Product!.Sku.Length));
        output.Add($"Graz: {cityOrders.Count} orders, check {cityCheck}");

        long compiled = 0;
        for (int c = 1; c <= 600; c += 3)
            await foreach (var o in OrdersOf(shop, c)) compiled = compiled * 7 % 1_000_003 + o.Number;
        output.Add($"compiled query over a third of the customers: check {compiled}");

        long streamed = 0;
        await foreach (var l in shop.Lines.AsNoTracking().OrderBy(l => l.Id).AsAsyncEnumerable()) streamed = (streamed * 131 + l.Quantity * l.UnitCents) % 1_000_000_007;
        output.Add($"streamed lines check {streamed}");

        var raw = await shop.Products.FromSqlInterpolated($"SELECT * FROM Products WHERE PriceCents > {15_000} ORDER BY Sku").Select(p => p.Sku).ToListAsync();
        output.Add($"raw SQL: {raw.Count} products over 150.00, first {raw.FirstOrDefault()}");

        int pages = 0, paged = 0;
        for (int skip = 0; ; skip += 64, pages++)
        {
            var page = await shop.Customers.OrderBy(c => c.Email).Skip(skip).Take(64).Select(c => c.Id).ToListAsync();
            if (page.Count == 0) break;
            paged += page.Count;
        }
        output.Add($"paged {paged} customers in {pages} pages");

        // Four contexts at once, each on its own connection.
        var parallel = await Task.WhenAll(Enumerable.Range(0, 4).Select(async part =>
        {
            await using var own = new Shop(options);
            return await own.Orders.Where(o => o.Id % 4 == part).SumAsync(o => (long)o.PlacedDay);
        }));
        output.Add($"parallel sums {string.Join(" ", parallel)}");
        return output;
    }
}

public static class Changes
{
    public static async Task<List<string>> Run(DbContextOptions<Shop> options)
    {
        var output = new List<string>();
        await using var shop = new Shop(options);
        int raised = await shop.Products.Where(p => p.Category == "tools").ExecuteUpdateAsync(s => s.SetProperty(p => p.PriceCents, p => p.PriceCents + 100));
        output.Add($"prices raised: {raised}");

        var cancelled = shop.Orders.Where(o => o.Status == OrderStatus.Cancelled);
        int linesGone = await shop.Lines.Where(l => cancelled.Any(o => o.Id == l.OrderId)).ExecuteDeleteAsync();
        int ordersGone = await cancelled.ExecuteDeleteAsync();
        output.Add($"cancelled orders deleted: {ordersGone} (with {linesGone} lines)");

        await using (var tx = await shop.Database.BeginTransactionAsync())
        {
            var placed = await shop.Orders.Where(o => o.Status == OrderStatus.Placed).OrderBy(o => o.Number).Take(300).ToListAsync();
            foreach (var o in placed) o.Status = OrderStatus.Paid;
            int saved = await shop.SaveChangesAsync();
            await tx.CommitAsync();
            output.Add($"orders paid: {saved}");
        }
        var statuses = await shop.Orders.GroupBy(o => o.Status).Select(g => new { Status = g.Key, N = g.Count() }).OrderBy(x => x.Status).ToListAsync();
        output.Add("statuses: " + string.Join(", ", statuses.Select(s => $"{s.Status}={s.N}")));
        return output;
    }
}
