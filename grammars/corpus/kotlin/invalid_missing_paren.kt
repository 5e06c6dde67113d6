fun main() {
    println("hello"
    val x = 1
}
