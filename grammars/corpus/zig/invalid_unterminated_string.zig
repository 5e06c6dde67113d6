const s = "never closed;
pub fn main() void {}
