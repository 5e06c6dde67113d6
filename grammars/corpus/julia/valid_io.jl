using Printf

function read_numbers(path::String)::Vector{Int}
    nums = Int[]
    open(path) do io
        for line in eachline(io)
            line = strip(line)
            isempty(line) && continue
            push!(nums, parse(Int, line))
        end
    end
    return nums
end

try
    nums = read_numbers("numbers.txt")
    @printf("%d numbers, max %d\n", length(nums), maximum(nums))
catch e
    e isa SystemError ? println("missing file") : rethrow()
end

d = Dict("a" => 1, "b" => 2)
let k = "a"
    d[k] += 1
end
f = x -> x |> sqrt
