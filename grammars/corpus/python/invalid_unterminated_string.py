name = "never closed
print(name)
