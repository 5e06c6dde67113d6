import Foundation

struct Todo: Codable, Identifiable, Equatable {
    let id: UUID
    var title: String
    var done = false
}

enum StoreError: Error {
    case notFound(UUID)
}

final class TodoStore {
    private(set) var todos: [Todo] = []

    func add(_ title: String) -> Todo {
        let todo = Todo(id: UUID(), title: title)
        todos.append(todo)
        return todo
    }

    func toggle(_ id: UUID) throws {
        guard let index = todos.firstIndex(where: { $0.id == id }) else {
            throw StoreError.notFound(id)
        }
        todos[index].done.toggle()
    }

    var pending: [Todo] { todos.filter { !$0.done } }
}
