# frozen_string_literal: true

require "json"

module Shop
  class Item
    attr_reader :sku, :price
    attr_accessor :quantity

    def initialize(sku:, price:, quantity: 0)
      @sku = sku
      @price = price
      @quantity = quantity
    end

    def total = price * quantity

    def to_h
      { sku: sku, price: price, quantity: quantity }
    end

    def <=>(other)
      sku <=> other.sku
    end

    include Comparable
  end

  def self.load(path)
    JSON.parse(File.read(path), symbolize_names: true).map { |h| Item.new(**h) }
  rescue Errno::ENOENT => e
    warn "missing #{path}: #{e.message}"
    []
  end
end
