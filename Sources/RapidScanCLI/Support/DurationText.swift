import Foundation

/// A time span typed by a user: "3s", "2.5", "500ms", "1.5s", "2m". A bare number is seconds.
enum DurationText {
    enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        case invalid(String)
        var description: String {
            switch self {
            case .invalid(let text):
                "'\(text)' is not a duration: use seconds (3, 2.5), or a unit: 500ms, 3s, 2m"
            }
        }
    }

    static func seconds(from text: String) throws(ParseError) -> TimeInterval {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(trimmed)
        var scale = 1.0
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.scale
            break
        }
        let numeric = number.trimmingCharacters(in: .whitespaces)
        guard !numeric.isEmpty, numeric.allSatisfy({ $0.isNumber || $0 == "." }),
              let value = Double(numeric), value.isFinite, value >= 0
        else { throw .invalid(text) }
        return value * scale
    }
}
