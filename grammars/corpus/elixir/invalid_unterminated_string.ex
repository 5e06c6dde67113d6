defmodule Broken do
  def f, do: "never closed
end
