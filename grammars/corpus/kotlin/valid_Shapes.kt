sealed class Shape {
    abstract val area: Double

    data class Circle(val r: Double) : Shape() {
        override val area get() = Math.PI * r * r
    }

    object Empty : Shape() {
        override val area = 0.0
    }
}

fun describe(s: Shape): String = when (s) {
    is Shape.Circle -> "circle of ${s.r}"
    Shape.Empty -> "nothing"
}

fun <T : Comparable<T>> List<T>.secondLargest(): T? =
    sortedDescending().drop(1).firstOrNull()

enum class Color(val hex: String) { RED("#f00"), GREEN("#0f0") }

fun main() {
    val shapes = listOf(Shape.Circle(1.0), Shape.Empty)
    for ((i, s) in shapes.withIndex()) println("$i: ${describe(s)}")
    val name: String? = null
    println(name?.length ?: -1)
}
