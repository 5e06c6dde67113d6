import Foundation

actor Counter {
    private var value = 0

    func increment() -> Int {
        value += 1
        return value
    }
}

func fetch(_ url: URL) async throws -> Data {
    let (data, response) = try await URLSession.shared.data(from: url)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw URLError(.badServerResponse)
    }
    return data
}

@MainActor
class ViewModel: ObservableObject {
    @Published var items: [String] = []

    func load() async {
        do {
            let data = try await fetch(URL(string: "https://example.com")!)
            items = [String(decoding: data, as: UTF8.self)]
        } catch {
            items = []
        }
    }
}
