const std = @import("std");

pub const Point = struct {
    x: f64,
    y: f64,

    pub fn add(self: Point, other: Point) Point {
        return .{ .x = self.x + other.x, .y = self.y + other.y };
    }

    pub fn norm(self: Point) f64 {
        return @sqrt(self.x * self.x + self.y * self.y);
    }
};

const Color = enum { red, green, blue };

fn name(c: Color) []const u8 {
    return switch (c) {
        .red => "red",
        .green, .blue => "other",
    };
}

test "add" {
    const p = (Point{ .x = 1, .y = 2 }).add(.{ .x = 3, .y = 4 });
    try std.testing.expectEqual(@as(f64, 4), p.x);
}
