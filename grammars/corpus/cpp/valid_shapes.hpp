#pragma once

#include <cmath>
#include <string_view>

namespace geo {

enum class Kind { Circle, Rect };

class Shape {
public:
    explicit Shape(Kind k) noexcept : kind_(k) {}
    virtual ~Shape() = default;
    [[nodiscard]] virtual double area() const = 0;
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

class Circle final : public Shape {
public:
    explicit Circle(double r) : Shape(Kind::Circle), r_(r) {}
    double area() const override { return M_PI * r_ * r_; }

private:
    double r_;
};

inline std::string_view label(Kind k) {
    return k == Kind::Circle ? "circle" : "rect";
}

}  // namespace geo
