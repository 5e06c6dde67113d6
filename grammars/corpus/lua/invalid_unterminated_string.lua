local s = "hello
print(s)
