protocol Shape {
    var area: Double { get }
}

extension Shape {
    func describe() -> String { "area \(area)" }
}

struct Circle: Shape {
    var radius: Double
    var area: Double { .pi * radius * radius }
}

func largest<S: Shape>(_ shapes: [S]) -> S? {
    shapes.max { $0.area < $1.area }
}

enum Direction: String, CaseIterable {
    case north, south
}

let names = Direction.allCases.map(\.rawValue)
if let first = names.first, !first.isEmpty {
    print(first)
}
switch Direction.north {
case .north: print("up")
case .south: print("down")
}
