trait Show[A] {
  def show(a: A): String
}

object Show {
  def apply[A](implicit ev: Show[A]): Show[A] = ev

  implicit val intShow: Show[Int] = (a: Int) => a.toString

  implicit def listShow[A: Show]: Show[List[A]] =
    (as: List[A]) => as.map(Show[A].show).mkString("[", ", ", "]")
}

abstract class Animal(val name: String) {
  def sound: String
  override def toString: String = s"$name says $sound"
}

class Dog extends Animal("dog") {
  lazy val sound = "woof"
}
