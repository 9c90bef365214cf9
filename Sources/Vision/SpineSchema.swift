import Foundation

/// The reply's shape, as JSON Schema (OpenAI, Ollama, the prompt) and as Gemini's OpenAPI subset.
enum SpineSchema {
    static let fields = ["text", "title", "author", "series", "volume", "position", "confidence", "unreadable", "box"]

    /// OpenAI strict mode: every property required, nullable ones as type unions.
    static var jsonSchema: [String: Any] {
        let nullableString: [String: Any] = ["type": ["string", "null"]]
        let spine: [String: Any] = [
            "type": "object",
            "properties": [
                "text": ["type": "string"], "title": nullableString, "author": nullableString,
                "series": nullableString, "volume": nullableString,
                "position": ["type": ["integer", "null"]], "confidence": ["type": ["number", "null"]],
                "unreadable": ["type": "boolean"],
                // Four [x, y] corners (ReplyParser.box).
                "box": ["type": ["array", "null"], "items": ["type": "array", "items": ["type": "number"]] as [String: Any]] as [String: Any],
            ] as [String: Any],
            "required": fields,
            "additionalProperties": false,
        ]
        return [
            "type": "object",
            "properties": ["spines": ["type": "array", "items": spine] as [String: Any]],
            "required": ["spines"],
            "additionalProperties": false,
        ]
    }

    static var geminiSchema: [String: Any] {
        func nullable(_ type: String) -> [String: Any] { ["type": type, "nullable": true] }
        let spine: [String: Any] = [
            "type": "OBJECT",
            "properties": [
                "text": ["type": "STRING"], "title": nullable("STRING"), "author": nullable("STRING"),
                "series": nullable("STRING"), "volume": nullable("STRING"), "position": nullable("INTEGER"),
                "confidence": nullable("NUMBER"), "unreadable": ["type": "BOOLEAN"],
                "box": ["type": "ARRAY", "nullable": true, "items": ["type": "ARRAY", "items": ["type": "NUMBER"]] as [String: Any]] as [String: Any],
            ] as [String: Any],
            "required": ["text", "unreadable"],
        ]
        return ["type": "OBJECT", "properties": ["spines": ["type": "ARRAY", "items": spine] as [String: Any]], "required": ["spines"]]
    }

    static let jsonSchemaText: String = {
        let data = try? JSONSerialization.data(withJSONObject: jsonSchema, options: [.sortedKeys])
        return data.flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }()
}
