fn greet() -> String {
    let s = "hello;
    s.to_string()
}
