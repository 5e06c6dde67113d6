object Collections {
  sealed trait Shape
  case class Circle(r: Double) extends Shape
  case class Rect(w: Double, h: Double) extends Shape

  def area(s: Shape): Double = s match {
    case Circle(r)  => math.Pi * r * r
    case Rect(w, h) => w * h
  }

  def main(args: Array[String]): Unit = {
    val shapes = List(Circle(1), Rect(2, 3))
    val total = shapes.map(area).sum
    val byKind = shapes.groupBy(_.getClass.getSimpleName)
    for {
      (kind, xs) <- byKind
      if xs.nonEmpty
    } println(s"$kind: ${xs.size}")
    var i = 0
    while (i < 3) { i += 1 }
    println(f"total=$total%.2f")
  }
}
