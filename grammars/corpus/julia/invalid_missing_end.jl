function f(x)
    if x > 1
        return x
end
