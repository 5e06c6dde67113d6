fun main() {
    val s = "never closed
    println(s)
}
