class A {
    fun f(x: Int): Int {
        return x * 2
