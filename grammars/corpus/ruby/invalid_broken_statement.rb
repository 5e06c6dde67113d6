def add(a, b)
  c = a + * b
  c
end
