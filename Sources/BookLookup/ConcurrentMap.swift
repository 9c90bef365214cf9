/// Runs `transform` on every element with at most `width` running at once, returning
/// the results in input order (so what follows does not depend on timing).
public func concurrentMap<Element: Sendable, Result: Sendable>(
    _ elements: [Element], width: Int, _ transform: @escaping @Sendable (Element) async -> Result
) async -> [Result] {
    guard width > 1, elements.count > 1 else {
        var results: [Result] = []
        for element in elements { results.append(await transform(element)) }
        return results
    }
    return await withTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: elements.count)
        var next = 0
        for _ in 0..<min(width, elements.count) {
            let index = next, element = elements[index]
            group.addTask { (index, await transform(element)) }
            next += 1
        }
        for await (index, result) in group {
            results[index] = result
            if next < elements.count {
                let index = next, element = elements[index]
                group.addTask { (index, await transform(element)) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}
