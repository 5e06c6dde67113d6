defmodule Shop.Cart do
  @moduledoc "A shopping cart."

  defstruct items: %{}, owner: nil

  @type t :: %__MODULE__{items: map(), owner: String.t() | nil}

  @spec add(t(), String.t(), pos_integer()) :: t()
  def add(%__MODULE__{items: items} = cart, sku, qty \\ 1) when qty > 0 do
    %{cart | items: Map.update(items, sku, qty, &(&1 + qty))}
  end

  def total(cart, prices) do
    cart.items
    |> Enum.map(fn {sku, qty} -> Map.get(prices, sku, 0) * qty end)
    |> Enum.sum()
  end

  defp normalize(sku), do: sku |> String.trim() |> String.upcase()
end
