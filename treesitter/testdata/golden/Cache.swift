import Foundation

/// Cache keeps values in memory. It evicts on pressure.
/// More text.
public final class Cache<Key: Hashable, Value> {
    private var store: [Key: Value] = [:]
    public let limit: Int

    public init(limit: Int) {
        self.limit = limit
        self.store = [:]
        NotificationCenter.default.addObserver(self, selector: #selector(flush), name: nil, object: nil)
        print("init")
    }

    /// value returns the cached value. Nil when absent.
    public func value(for key: Key) -> Value? {
        guard let v = store[key] else {
            return nil
        }
        return v
    }

    private func evict() {
        store.removeAll()
        print("evicted")
        print(limit)
    }

    var count: Int { return store.count }
}

protocol Loader {
    func load(_ key: String) -> Data?
}

func helper(_ x: Int) -> Int {
    let y = x * 2
    let z = y + 1
    return z
}
