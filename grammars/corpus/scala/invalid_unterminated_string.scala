object A {
  val s = "never closed
  val n = 1
}
