abstract type Shape end

struct Circle <: Shape
    r::Float64
end

mutable struct Rect <: Shape
    w::Float64
    h::Float64
end

area(c::Circle) = π * c.r^2
area(r::Rect) = r.w * r.h

shapes = Shape[Circle(1.0), Rect(2, 3)]
total = sum(area, shapes)
println("total = $(round(total, digits=2))")

for (i, s) in enumerate(shapes)
    if s isa Circle
        @show i, s.r
    elseif s isa Rect
        println(i, ": rect")
    end
end
squares = [x^2 for x in 1:5 if isodd(x)]
