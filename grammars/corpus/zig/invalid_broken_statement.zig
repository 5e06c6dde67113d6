pub fn f(x: u32) u32 {
    const y = x + ;
    return y;
}
