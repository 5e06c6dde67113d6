const std = @import("std");

const ParseError = error{ Empty, TooLong };

fn parseLen(s: []const u8) ParseError!usize {
    if (s.len == 0) return error.Empty;
    if (s.len > 64) return error.TooLong;
    return s.len;
}

pub fn maybeFirst(items: []const i32) ?i32 {
    if (items.len == 0) return null;
    return items[0];
}

pub fn run() void {
    const n = parseLen("abc") catch |err| switch (err) {
        error.Empty => 0,
        error.TooLong => 64,
    };
    const first = maybeFirst(&[_]i32{ 1, 2 }) orelse -1;
    if (maybeFirst(&.{})) |v| {
        std.debug.print("{d}\n", .{v});
    }
    std.debug.print("{d} {d}\n", .{ n, first });
}
