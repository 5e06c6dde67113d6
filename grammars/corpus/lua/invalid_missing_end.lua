local function f(x)
  if x > 1 then
    return x
end
