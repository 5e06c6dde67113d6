Mix.install([{:jason, "~> 1.4"}])

words = ~w(apple banana apple cherry)

counts =
  for w <- words, reduce: %{} do
    acc -> Map.update(acc, w, 1, &(&1 + 1))
  end

IO.inspect(counts, label: "counts")

try do
  raise ArgumentError, "bad"
rescue
  e in ArgumentError -> IO.puts("rescued: #{e.message}")
end

if Enum.any?(words, &String.starts_with?(&1, "a")), do: IO.puts("has a"), else: IO.puts("none")
cond do
  length(words) > 3 -> :many
  true -> :few
end
