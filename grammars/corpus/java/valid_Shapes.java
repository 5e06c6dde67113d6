package com.example.shapes;

public sealed interface Shape permits Circle, Square {
    double area();

    static String describe(Shape s) {
        return switch (s) {
            case Circle c -> "circle " + c.r();
            case Square q -> "square " + q.side();
        };
    }
}

record Circle(double r) implements Shape {
    public double area() { return Math.PI * r * r; }
}

record Square(double side) implements Shape {
    public double area() { return side * side; }
}
