x = 1 + * 2
IO.puts(x)
