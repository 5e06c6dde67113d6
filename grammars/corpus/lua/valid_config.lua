-- Neovim-style configuration
local opts = {
  number = true,
  tabstop = 4,
  ["list-chars"] = { tab = ">> ", trail = "." },
}

for k, v in pairs(opts) do
  if type(v) == "table" then
    for inner, val in pairs(v) do
      print(k .. "." .. inner, val)
    end
  else
    print(k, tostring(v))
  end
end

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local squares = {}
for i = 1, 10, 2 do squares[#squares + 1] = i ^ 2 end
print(fib(10), #squares, [[long
string]])
