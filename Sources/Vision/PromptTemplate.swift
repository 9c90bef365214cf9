import Foundation
import Mustache

/// The prompt sent with each photo: a Mustache template with `imageName`, `languages`,
/// `schema` (the JSON schema of the reply) and `tile` (e.g. "2 of 3", empty for a whole photo).
public struct PromptTemplate: Sendable, Hashable {
    public let source: String
    public let template: String

    public static let builtIn = PromptTemplate(source: "built-in", uncheckedTemplate: """
        Identify every book spine visible in this photo of a shelf ({{imageName}}{{#tile}}, tile {{tile}}{{/tile}}). \
        The spines are most likely in {{languages}}.
        For each spine, from left to right, give:
        - "text": all the text on the spine exactly as printed, in reading order;
        - "title": the book's title, cleaned (no publisher, no call number, no author);
        - "author": the author's name as printed, or null;
        - "series" and "volume": the series name and volume number if printed, else null;
        - "position": the spine's place on the shelf, 0 for the leftmost;
        - "confidence": how sure you are of the title, from 0 to 1;
        - "box": where the spine's text is, as four [x, y] corners in fractions of the image's width and height (0 to 1): \
        the top-left, top-right, bottom-right and bottom-left of the text as it is read, or null;
        - "unreadable": true if you can see a spine but cannot read its title. Never guess a title you cannot read.
        Do not add books that are not visible. Answer with JSON only, matching this schema:
        {{{schema}}}
        """)

    private init(source: String, uncheckedTemplate: String) {
        self.source = source
        self.template = uncheckedTemplate
    }

    /// A user's template; a syntax error is reported with the file's name.
    public init(source: String, template: String) throws(VisionError) {
        do { _ = try MustacheTemplate(string: template) } catch {
            throw .image(photo: source, message: "is not a valid Mustache template (\(error))")
        }
        self.source = source
        self.template = template
    }

    public static func load(path: String) throws(VisionError) -> PromptTemplate {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw .image(photo: path, message: "cannot read the prompt template")
        }
        return try PromptTemplate(source: path, template: text)
    }

    public func render(imageName: String, languages: [String], tile: String? = nil) -> String {
        // Validated at init; the built-in one is known good.
        guard let template = try? MustacheTemplate(string: template) else { return self.template }
        let values: [String: Any] = [
            "imageName": imageName,
            "languages": languages.joined(separator: " or "),
            "schema": SpineSchema.jsonSchemaText,
            // false, not "": an empty string is truthy for a Mustache section.
            "tile": tile.map { $0 as Any } ?? false,
        ]
        return template.render(values)
    }
}
