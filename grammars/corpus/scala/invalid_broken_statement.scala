object A {
  def f(x: Int): Int = {
    val y = x + * 2
    y
  }
}
