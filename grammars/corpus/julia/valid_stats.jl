module Stats

export mean, variance

"""
    mean(xs)

Arithmetic mean.
"""
function mean(xs::AbstractVector{<:Real})
    isempty(xs) && throw(ArgumentError("empty"))
    return sum(xs) / length(xs)
end

function variance(xs; corrected::Bool=true)
    m = mean(xs)
    n = length(xs) - (corrected ? 1 : 0)
    return sum((x - m)^2 for x in xs) / n
end

end # module
