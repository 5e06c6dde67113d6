using System;
using System.Collections.Generic;
using System.Linq;

namespace Shop.Domain
{
    public record Item(string Sku, decimal Price, int Quantity);

    public class Inventory
    {
        private readonly Dictionary<string, Item> _items = new();

        public event EventHandler<Item>? Added;

        public void Add(Item item)
        {
            _items[item.Sku] = item;
            Added?.Invoke(this, item);
        }

        public decimal TotalValue => _items.Values.Sum(i => i.Price * i.Quantity);

        public IEnumerable<Item> LowStock(int threshold = 5) =>
            from i in _items.Values
            where i.Quantity < threshold
            orderby i.Sku
            select i;
    }
}
