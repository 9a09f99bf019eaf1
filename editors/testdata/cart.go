package cart

// Cart holds items.
type Cart struct{ Items []Item }

// Item is a line of a cart.
type Item struct {
	SKU string
	Qty int
}

// Total sums the quantities.
func (c *Cart) Total() int {
	n := 0
	for _, it := range c.Items {
		n += it.Qty
	}
	return n
}
