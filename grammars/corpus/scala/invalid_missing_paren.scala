object A {
  def main(args: Array[String]): Unit = {
    println("hi"
  }
}
