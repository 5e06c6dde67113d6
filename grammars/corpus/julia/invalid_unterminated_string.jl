s = "never closed
println(s)
