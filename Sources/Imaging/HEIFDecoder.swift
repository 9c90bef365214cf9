import CHeif
import CLazyLibraries

/// HEIC/HEIF (iPhone photos) and AVIF, through libheif: the primary image decoded in its own
/// colour space (YCbCr or monochrome), whose luma plane is the gray image, so no RGB is
/// ever made. libheif returns every failure as a value; its contexts are independent, so
/// threads decode in parallel.
enum HEIFDecoder {
    /// The container is HEIF; `codec` names the family for errors ("HEIC", "AVIF", "HEIF").
    static func decode(_ bytes: UnsafeRawBufferPointer, name: String, codec: String, maxPixels: Int)
        throws(ImageError) -> LoadedImage {
        // libheif is opened on first use (CLazyLibraries): a machine without it reads every other format.
        if let reason = rs_heif_load() {
            throw .decoderUnavailable(file: name, format: .heif, reason: String(cString: reason))
        }
        _ = initialised
        guard let context = heif_context_alloc() else {
            throw .outOfMemory(file: name, detail: "libheif could not allocate a context")
        }
        defer { heif_context_free(context) }
        var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
        try check(error, name: name, codec: codec, maxPixels: maxPixels)

        var handleOut: OpaquePointer?
        error = heif_context_get_primary_image_handle(context, &handleOut)
        try check(error, name: name, codec: codec, maxPixels: maxPixels)
        guard let handle = handleOut else { throw .corrupt(file: name, format: .heif, detail: "no primary image") }
        defer { heif_image_handle_release(handle) }

        // The header gives the size (as displayed, and as stored): checked before a pixel is decoded.
        let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
        let storedWidth = Int(heif_image_handle_get_ispe_width(handle))
        let storedHeight = Int(heif_image_handle_get_ispe_height(handle))
        guard width > 0, height > 0 else {
            throw .corrupt(file: name, format: .heif, detail: "image size \(width)×\(height)")
        }
        for (w, h) in [(width, height), (storedWidth, storedHeight)] where w.multipliedReportingOverflow(by: h).partialValue > maxPixels
            || w.multipliedReportingOverflow(by: h).overflow {
            throw .tooLarge(file: name, width: w, height: h, maxPixels: maxPixels)
        }

        // Decoded in the coded colour space: no conversion, luma is plane Y. libheif applies
        // the file's irot/imir/clap itself (they are part of a HEIF image's geometry).
        let options = heif_decoding_options_alloc()
        defer { heif_decoding_options_free(options) }
        var imageOut: OpaquePointer?
        // libde265's reference frames, the decoded planes and our copy: a 12 MP HEIC peaks
        // at ~90 MB over the process's base (≈ 7.5 bytes a pixel), so two workers fit the
        // shared budget and a third waits.
        error = DecodeMemoryBudget.shared.withReservation(max(width * height, storedWidth * storedHeight) * 8) {
            heif_decode_image(handle, &imageOut, heif_colorspace_undefined, heif_chroma_undefined, options)
        }
        try check(error, name: name, codec: codec, maxPixels: maxPixels)
        guard let image = imageOut else { throw .corrupt(file: name, format: .heif, detail: "no image decoded") }
        defer { heif_image_release(image) }

        let gray = try luma(of: image, name: name, fullRange: isFullRange(image))
        // EXIF orientation is only a hint in HEIF (irot/imir are authoritative and already
        // applied; iPhones write both, and applying both turns the photo twice). It is used
        // only when the file has no transform of its own, as some encoders write.
        let orientation = HEIFBoxes.hasOrientationTransform(bytes) ? 1 : exifOrientation(handle)
        // The coded size (ispe) may be padded for the codec; the size as the file shows it is
        // the one reported, as a JPEG's before its EXIF turn.
        return LoadedImage(image: gray, format: .heif, originalWidth: width, originalHeight: height,
                           exifOrientation: orientation)
    }

    /// Called once per process before the first decode (it loads libheif's plugins, if any).
    private static let initialised: Bool = {
        heif_init(nil).code == heif_error_Ok
    }()

    private static func luma(of image: OpaquePointer, name: String, fullRange: Bool) throws(ImageError) -> GrayImage {
        let colorspace = heif_image_get_colorspace(image)
        guard colorspace == heif_colorspace_YCbCr || colorspace == heif_colorspace_monochrome else {
            // RGB-coded (lossless 4:4:4) files: ask libheif for the planes as they are, and
            // take the luma of R, G, B.
            return try lumaFromRGB(image, name: name)
        }
        let w = Int(heif_image_get_width(image, heif_channel_Y))
        let h = Int(heif_image_get_height(image, heif_channel_Y))
        var strideOut: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_Y, &strideOut) else {
            throw .corrupt(file: name, format: .heif, detail: "the decoded image has no luma plane")
        }
        let stride = Int(strideOut)
        let storageBits = Int(heif_image_get_bits_per_pixel(image, heif_channel_Y))
        let rangeBits = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_Y))
        var pixels = [UInt8](repeating: 0, count: w * h)
        // Limited ("video") range puts black at 16 and white at 235: stretched back to 0…255.
        let stretch: (Int) -> UInt8 = fullRange
            ? { UInt8(clamping: $0) } : { UInt8(clamping: ($0 - 16) * 255 / 219) }
        pixels.withUnsafeMutableBufferPointer { out in
            if storageBits <= 8 {
                for y in 0..<h {
                    let row = plane + y * stride
                    for x in 0..<w { out[y * w + x] = stretch(Int(row[x])) }
                }
            } else {
                // 10/12-bit HEIC: 16-bit little-endian samples, shifted down to 8 bits.
                let shift = max(rangeBits - 8, 0)
                for y in 0..<h {
                    let row = UnsafeRawPointer(plane + y * stride)
                    for x in 0..<w {
                        let sample = Int(row.load(fromByteOffset: 2 * x, as: UInt16.self)) >> shift
                        out[y * w + x] = stretch(sample)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: pixels)
    }

    private static func lumaFromRGB(_ image: OpaquePointer, name: String) throws(ImageError) -> GrayImage {
        let w = Int(heif_image_get_width(image, heif_channel_R))
        let h = Int(heif_image_get_height(image, heif_channel_R))
        var strides: [Int32] = [0, 0, 0]
        guard w > 0, h > 0, heif_image_get_bits_per_pixel(image, heif_channel_R) == 8,
              let r = heif_image_get_plane_readonly(image, heif_channel_R, &strides[0]),
              let g = heif_image_get_plane_readonly(image, heif_channel_G, &strides[1]),
              let b = heif_image_get_plane_readonly(image, heif_channel_B, &strides[2]) else {
            throw .unsupportedFormat(file: name, format: "HEIF with a colour layout other than YCbCr or 8-bit RGB planes")
        }
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                // BT.601 luma, as libjpeg's gray output.
                let sum = 299 * Int(r[y * Int(strides[0]) + x]) + 587 * Int(g[y * Int(strides[1]) + x])
                    + 114 * Int(b[y * Int(strides[2]) + x])
                pixels[y * w + x] = UInt8((sum + 500) / 1000)
            }
        }
        return GrayImage(width: w, height: h, pixels: pixels)
    }

    /// Photos are full range unless the file says otherwise (nclx `full_range_flag` 0).
    private static func isFullRange(_ image: OpaquePointer) -> Bool {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_get_nclx_color_profile(image, &profile).code == heif_error_Ok, let nclx = profile else {
            return true
        }
        defer { heif_nclx_color_profile_free(nclx) }
        return nclx.pointee.full_range_flag != 0
    }

    /// The orientation tag of the primary image's Exif block (1 when it has none).
    private static func exifOrientation(_ handle: OpaquePointer) -> Int {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return 1 }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 4, size <= 1 << 20 else { return 1 }
        var block = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_metadata(handle, id, &block).code == heif_error_Ok else { return 1 }
        return exifOrientation(ofHEIFExifBlock: block)
    }

    /// A HEIF Exif item starts with the big-endian offset of the TIFF header after its first
    /// four bytes; some writers put JPEG's "Exif\0\0" before the header, some do not.
    static func exifOrientation(ofHEIFExifBlock block: [UInt8]) -> Int {
        guard block.count > 4 else { return 1 }
        let offset = block[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard offset >= 0, offset < block.count - 4 else { return 1 }
        let rest = Array(block[(4 + offset)...])
        let marker: [UInt8] = Array("Exif".utf8) + [0, 0]
        let payload = rest.starts(with: marker) ? rest : marker + rest
        return NativeCodecs.exifOrientation(ofAPP1: payload) ?? 1
    }

    private static func check(_ error: heif_error, name: String, codec: String, maxPixels: Int) throws(ImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            throw .unsupportedFormat(file: name, format: "\(codec) (\(message))")
        case heif_error_Decoder_plugin_error where error.subcode == heif_suberror_Unsupported_codec:
            throw .unsupportedFormat(file: name, format: "\(codec) (\(message))")
        case heif_error_Memory_allocation_error:
            throw .outOfMemory(file: name, detail: message)
        case heif_error_Invalid_input where error.subcode == heif_suberror_End_of_data:
            throw .truncated(file: name, format: .heif, detail: message)
        default:
            throw .corrupt(file: name, format: .heif, detail: message)
        }
    }
}

/// Just enough of ISO-BMFF to see whether the file turns its image itself (`irot`/`imir`
/// item properties in meta/iprp/ipco). Every read is bounds-checked.
enum HEIFBoxes {
    static func hasOrientationTransform(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let meta = children(of: bytes[...]).first(where: { $0.type == "meta" }),
              meta.body.count >= 4,
              let iprp = children(of: meta.body.dropFirst(4)).first(where: { $0.type == "iprp" }),
              let ipco = children(of: iprp.body).first(where: { $0.type == "ipco" }) else {
            return false
        }
        return children(of: ipco.body).contains { $0.type == "irot" || $0.type == "imir" }
    }

    struct Box {
        var type: String
        var body: Slice<UnsafeRawBufferPointer>
    }

    /// The boxes laid end to end in `data`; stops at the first malformed one.
    static func children(of data: Slice<UnsafeRawBufferPointer>) -> [Box] {
        var boxes: [Box] = []
        var start = data.startIndex
        while data.endIndex - start >= 8, boxes.count < 4096 {
            func be(_ at: Int, _ count: Int) -> Int { (at..<at + count).reduce(0) { $0 << 8 | Int(data[$1]) } }
            var size = be(start, 4)
            var header = 8
            if size == 1 {
                guard data.endIndex - start >= 16 else { break }
                size = be(start + 8, 8)
                header = 16
            } else if size == 0 {
                size = data.endIndex - start
            }
            guard size >= header, size <= data.endIndex - start else { break }
            let type = String(decoding: data[start + 4..<start + 8], as: UTF8.self)
            boxes.append(Box(type: type, body: data[start + header..<start + size]))
            start += size
        }
        return boxes
    }
}
