import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A vision model over HTTP as a `SpineReader`: prepares the photo, renders the prompt,
/// sends it (bounded concurrency, retries with back-off, `Retry-After`/`RetryInfo`
/// honoured), and parses the reply tolerantly.
public final class VisionReader: SpineReader {
    public let settings: VisionSettings
    public let prompt: PromptTemplate
    public let tiles: Int
    private let api: ProviderAPI
    private let session: URLSession
    private let slots: Slots
    private let sleep: @Sendable (TimeInterval) async -> Void

    public init(settings: VisionSettings, prompt: PromptTemplate = .builtIn, tiles: Int = 1,
                sleep: @escaping @Sendable (TimeInterval) async -> Void = { try? await Task.sleep(for: .seconds($0)) }) {
        self.settings = settings
        self.prompt = prompt
        self.tiles = max(1, tiles)
        self.api = ProviderAPI(settings: settings)
        self.slots = Slots(limit: max(1, settings.maxConcurrentRequests))
        self.sleep = sleep
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = max(1, settings.timeoutSeconds)
        configuration.timeoutIntervalForResource = max(1, settings.timeoutSeconds)
        configuration.urlCache = nil
        self.session = URLSession(configuration: configuration)
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
        return ShelfImage.merge(answers)
    }

    func read(_ image: PreparedImage, prompt: String, photo: String) async throws(VisionError) -> ShelfReading {
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
        guard let parsed = ReplyParser.parse(reply.text) else {
            // A cut reply that had not reached its JSON yet is a truncation, not prose.
            if reply.truncated { return ShelfReading(readings: [], usage: reply.usage, truncated: true) }
            throw .noReadings(photo: photo, excerpt: ProviderAPI.excerpt(reply.text))
        }
        return ShelfReading(readings: parsed.readings, usage: reply.usage, truncated: reply.truncated || parsed.incomplete)
    }

    /// POSTs with retries; returns the 2xx body or throws what the failure means.
    func send(_ request: VisionRequest) async throws(VisionError) -> Data {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: max(1, settings.timeoutSeconds))
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = request.body
        for (field, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: field) }
        let provider = settings.provider.rawValue
        var attempt = 0
        while true {
            attempt += 1
            await slots.acquire()
            let result: Result<(Data, URLResponse), any Error>
            do { result = .success(try await session.data(for: urlRequest)) } catch { result = .failure(error) }
            await slots.release()
            var retryAfter: TimeInterval?
            let lastError: VisionError
            switch result {
            case .failure(let error):
                lastError = .network(provider: provider, message: Self.describe(error, url: request.url))
            case .success(let (data, response)):
                guard let http = response as? HTTPURLResponse else { throw .network(provider: provider, message: "not an HTTP response") }
                var headers: [String: String] = [:]
                for (key, value) in http.allHeaderFields { if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value } }
                if (200..<300).contains(http.statusCode) { return data }
                switch api.failure(status: http.statusCode, headers: headers, body: data) {
                case .quota(let message): throw .quotaExhausted(provider: provider, message: message)
                case .fail(let message): throw .request(provider: provider, status: http.statusCode, message: message)
                case .retry(let after):
                    retryAfter = after
                    lastError = http.statusCode == 429
                        ? .rateLimited(provider: provider, retryAfter: after)
                        : .server(provider: provider, status: http.statusCode, message: ProviderAPI.errorMessage(data))
                }
            }
            guard attempt <= settings.retries, !Task.isCancelled else { throw lastError }
            let backoff = settings.retryBaseDelaySeconds * pow(2, Double(attempt - 1)) * Double.random(in: 0.5...1)
            await sleep(min(retryAfter ?? backoff, settings.maxRetryDelaySeconds))
        }
    }

    static func describe(_ error: any Error, url: URL) -> String {
        let host = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        guard let urlError = error as? URLError else { return "request to \(host) failed" }
        switch urlError.code {
        case .timedOut: return "\(host) did not answer in time"
        case .cannotConnectToHost: return "cannot connect to \(host)"
        case .cannotFindHost, .dnsLookupFailed: return "cannot resolve \(host)"
        default: return "URL error \(urlError.code.rawValue) talking to \(host)"
        }
    }
}

/// Requests in flight at once.
actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    init(limit: Int) { free = limit }
    func acquire() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }
    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
