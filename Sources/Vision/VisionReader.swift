import BookMetadata
import Foundation
import MetadataSources

/// A vision model over HTTP as a `SpineReader`: prepares the photo, renders the prompt,
/// sends it through MetadataSources' `HTTPClient` (libcurl; requests in flight bounded,
/// retries by `Backoff`, `Retry-After`/`RetryInfo` honoured, a wait longer than a retry would
/// take not waited for, the key redacted from every answer and error, redirects only within
/// the configured host), and parses the reply tolerantly within `ReplyLimits`.
public final class VisionReader: SpineReader {
    public let settings: VisionSettings
    public let prompt: PromptTemplate
    public let tiles: Int
    private let api: ProviderAPI
    private let client: HTTPClient
    /// The key in every encoding, for the errors built from what a server said.
    private let redaction: SecretRedaction

    /// The largest reply body read, counted after gzip decoding: a reply of 200,000 tokens
    /// (the most `--max-tokens` allows) is under 2 MB of JSON.
    public static let maxReplyBytes = 8 << 20

    /// - Parameters:
    ///   - clock: waits between retries (tests record them instead).
    ///   - logger: one line per request, the key redacted (`RAPIDSCAN_DEBUG`).
    public init(settings: VisionSettings, prompt: PromptTemplate = .builtIn, tiles: Int = 1,
                clock: any PacingClock = SystemPacingClock(), logger: RequestLogger = .disabled) {
        self.settings = settings
        self.prompt = prompt
        self.tiles = max(1, tiles)
        self.api = ProviderAPI(settings: settings)
        self.redaction = SecretRedaction(secret: settings.apiKey)
        self.client = HTTPClient(
            policy: HTTPClient.Policy(
                timeout: max(1, settings.timeoutSeconds), retries: max(0, settings.retries),
                maxConcurrentRequests: max(1, settings.maxConcurrentRequests), baseDelay: settings.retryBaseDelaySeconds,
                maxDelay: settings.maxRetryDelaySeconds, maxResponseBytes: Self.maxReplyBytes),
            clock: clock, logger: logger)
    }

    /// Provider, endpoint, model and a fingerprint of everything that shapes the answer
    /// (prompt template, languages, image size, tiles): the reply cache's key with the photo's hash.
    public var identity: String {
        let shape = "\(prompt.template)|\(settings.languages)|\(settings.maxImageSide)|\(tiles)|\(settings.maxTokens)|\(settings.temperature)"
        return "\(settings.provider.rawValue)|\(settings.baseURL.absoluteString)|\(settings.model)|\(ContentHash.hex(shape))"
    }

    public func readSpines(in photo: ShelfPhoto) async throws -> ShelfReading {
        let images = try ShelfImage.prepare(photo, maxSide: settings.maxImageSide, tiles: tiles)
        let name = (photo.path as NSString).lastPathComponent
        if images.count == 1 {
            return try await read(images[0], prompt: prompt.render(imageName: name, languages: settings.languages), photo: photo.path)
        }
        // Tiles go out together (bounded by maxConcurrentRequests) and merge left to right.
        let answers = try await withThrowingTaskGroup(of: (Int, ShelfReading).self) { group in
            for (index, image) in images.enumerated() {
                let text = prompt.render(imageName: name, languages: settings.languages, tile: image.tile)
                group.addTask { (index, try await self.read(image, prompt: text, photo: photo.path)) }
            }
            var byIndex: [Int: ShelfReading] = [:]
            for try await (index, reading) in group { byIndex[index] = reading }
            return images.indices.compactMap { byIndex[$0] }
        }
        return ReplyLimits.apply(ShelfImage.merge(answers))
    }

    /// One image's readings; every error is redacted of the key (a server may quote it back,
    /// in any encoding, in a body the error repeats).
    func read(_ image: PreparedImage, prompt: String, photo: String) async throws(VisionError) -> ShelfReading {
        do {
            return try await readUnredacted(image, prompt: prompt, photo: photo)
        } catch {
            throw error.redacting(redaction)
        }
    }

    private func readUnredacted(_ image: PreparedImage, prompt: String, photo: String) async throws(VisionError) -> ShelfReading {
        let body: Data
        do {
            body = try await send(try api.request(prompt: prompt, jpeg: image.jpeg))
        } catch where api.rejectsStructuredOutput(error) {
            // Older llama.cpp / LM Studio builds: the prompt carries the schema anyway.
            body = try await send(try api.request(prompt: prompt, jpeg: image.jpeg, structured: false))
        }
        let reply = try api.reply(body, photo: photo)
        if let refusal = reply.refusal { throw .refused(photo: photo, message: refusal) }
        if let blocked = reply.blocked { throw .blocked(photo: photo, reason: blocked) }
        guard var parsed = ReplyParser.parse(reply.text, image: (image.width, image.height)) else {
            // A cut reply that had not reached its JSON yet is a truncation, not prose.
            if reply.truncated { return ShelfReading(readings: [], usage: reply.usage, truncated: true) }
            throw .noReadings(photo: photo, excerpt: ProviderAPI.excerpt(reply.text, redaction: redaction))
        }
        // A tile's boxes are placed on the whole photo (at the tile's scale).
        if image.share < 1 {
            let width = Int((Double(image.width) / image.share).rounded())
            for index in parsed.readings.indices {
                parsed.readings[index].box = parsed.readings[index].box.flatMap { box in
                    SpineBox(width: width, height: box.height, corners: box.corners.map { SpineBox.Point(x: $0.x + image.left * Double(width), y: $0.y) })
                }
            }
        }
        return ReplyLimits.apply(ShelfReading(readings: parsed.readings, usage: reply.usage, truncated: reply.truncated || parsed.incomplete,
                                              dropped: parsed.dropped))
    }

    /// POSTs with retries (HTTPClient: rate limits and server errors, within the policy);
    /// returns the 2xx body or throws what the last answer means.
    func send(_ request: VisionRequest) async throws(VisionError) -> Data {
        let provider = settings.provider.rawValue
        let response: HTTPResponse
        do {
            response = try await client.send(
                HTTPRequest(method: "POST", url: request.url, headers: request.headers, body: request.body),
                classify: { [api] in api.retryable($0) })
        } catch {
            throw .network(provider: provider, message: describe(error, url: request.url))
        }
        if (200..<300).contains(response.status) { return response.body }
        switch api.failure(status: response.status, headers: response.headers, body: response.body) {
        case .quota(let message): throw .quotaExhausted(provider: provider, message: message)
        case .fail(let message): throw .request(provider: provider, status: response.status, message: message)
        case .retry(let after):
            throw response.status == 429
                ? .rateLimited(provider: provider, retryAt: after.map { Date().addingTimeInterval($0) })
                : .server(provider: provider, status: response.status, message: ProviderAPI.errorMessage(response.body, redaction: redaction))
        }
    }

    /// A request that got no answer, in the reader's words.
    func describe(_ error: SourceError, url: URL) -> String {
        let host = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        switch error {
        case .timeout: return "\(host) did not answer within \(Self.seconds(settings.timeoutSeconds)) s (the time-out: --timeout or [vision] timeoutSeconds)"
        case .network(let reason), .badResponse(let reason): return reason
        default: return "\(error)"
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
