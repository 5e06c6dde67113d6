local x = 1 +
local y = 2
print(x y)
