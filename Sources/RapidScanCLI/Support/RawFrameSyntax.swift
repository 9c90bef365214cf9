import ArgumentParser
import Imaging

/// The one raw-frame syntax of every command: `FORMAT:WIDTHxHEIGHT`, FORMAT `y800` (also
/// `grey`, `gray`) or `yuyv` (also `yuy2`), e.g. `yuyv:1280x720`. Parsed once, here, as the
/// option is read.
enum RawFrameSyntax {
    static let valueName = "format:WxH"
    static let help = "Read headerless frame files (.y800 .grey .gray .yuv .yuyv .raw) as this format and size, e.g. y800:640x480 or yuyv:1280x720."

    static func parse(_ text: String) throws -> RawFrameFormat {
        let parts = text.lowercased().split(separator: ":")
        let size = parts.count == 2 ? parts[1].split(separator: "x").compactMap { Int($0) } : []
        guard parts.count == 2, size.count == 2, size[0] > 0, size[1] > 0,
              let format = format(String(parts[0]), width: size[0], height: size[1]) else {
            throw ValidationError("--raw-frame wants FORMAT:WIDTHxHEIGHT with FORMAT y800 or yuyv (e.g. y800:640x480), not '\(text)'.")
        }
        return format
    }

    static func format(_ layout: String, width: Int, height: Int) -> RawFrameFormat? {
        switch layout.lowercased() {
        case "y800", "grey", "gray": .y800(width: width, height: height)
        case "yuyv", "yuy2": .yuyv(width: width, height: height)
        default: nil
        }
    }
}
