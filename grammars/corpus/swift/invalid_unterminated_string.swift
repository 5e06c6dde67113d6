let s = "never closed
print(s)
