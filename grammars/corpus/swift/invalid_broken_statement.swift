func add(_ a: Int, _ b: Int) -> Int {
    let c = a + * b
    return c
}
