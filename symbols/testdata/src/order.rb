module Shop
  class Order
    TAX_RATE = 0.2

    def total(items)
      items.sum(&:price) * (1 + TAX_RATE)
    end
  end
end
