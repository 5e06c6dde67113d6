pub fn main() void {
    var i: u32 = 0;
    while (i < 3) : (i += 1) {
        i += 1;
