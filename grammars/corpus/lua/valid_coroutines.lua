local function producer(items)
  return coroutine.create(function()
    for _, item in ipairs(items) do
      coroutine.yield(item)
    end
  end)
end

local co = producer({ "a", "b" })
repeat
  local ok, value = coroutine.resume(co)
  if ok and value ~= nil then print(value) end
until coroutine.status(co) == "dead"

local ok, err = pcall(function() error({ code = 42 }) end)
if not ok then
  print(err.code)
end
goto done
::done::
