name = "never closed
puts name
