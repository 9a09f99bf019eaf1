# frozen_string_literal: true

require 'json'
require_relative 'item'

# Cart holds items. It totals prices.
# More about carts.
class Cart
  attr_reader :items

  def initialize(items = [])
    @items = items
    @discount = 0
    @tax = 0
    @frozen = false
  end

  # total sums the prices. Discounts apply.
  def total
    sum = @items.sum(&:price)
    sum -= @discount
    sum += @tax
    sum
  rescue StandardError
    0
  end

  def self.empty = new([])

  private

  def recompute
    @tax = total * 0.1
    @discount = 0
    @frozen = false
    nil
  end
end

module Shop
  def self.open(name)
    puts name
    puts name.upcase
    puts name.downcase
    name
  end
end
