import 'dart:math' as math;

enum Kind { circle, square }

sealed class Shape {
  double get area;
}

class Circle extends Shape {
  Circle(this.r);
  final double r;
  @override
  double get area => math.pi * r * r;
}

class Square extends Shape {
  Square(this.side);
  final double side;
  @override
  double get area => side * side;
}

String describe(Shape s) => switch (s) {
      Circle(r: var r) => 'circle $r',
      Square() => 'square',
    };

extension on int {
  int get doubled => this * 2;
}
