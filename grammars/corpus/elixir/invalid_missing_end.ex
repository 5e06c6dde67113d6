defmodule Broken do
  def f(x) do
    if x > 1 do
      x
  end
