import Foundation

/// A pure-Swift reader of MP4 and QuickTime files: boxes, tracks, sample descriptions
/// (including `mebx` metadata keys, which FFmpeg does not expose) and sample tables.
///
/// It reads in bounded ranges: the box headers at the top level, then the whole `moov`
/// (at most ``maximumMoovSize``), then one sample at a time. Sizes are checked against
/// their parent, never trusted past it.
public struct MP4File: Sendable {
    /// The largest `moov` box read into memory (256 MiB).
    public static let maximumMoovSize: Int64 = 256 << 20

    private let source: Source
    /// The size of the file or data, in bytes.
    public let size: Int64
    /// The file's path, for error messages.
    public let path: String?

    enum Source: Sendable {
        case memory([UInt8])
        case file(FileSource)
        case reader(@Sendable (Range<Int64>) throws(ReelError) -> [UInt8])
    }

    /// Reads from bytes in memory.
    public init(data: Data) {
        let bytes = [UInt8](data)
        self.source = .memory(bytes)
        self.size = Int64(bytes.count)
        self.path = nil
    }

    /// Reads from a file, which stays open while this value (or a copy) exists.
    public init(contentsOf url: URL) throws(ReelError) {
        let file = try FileSource(url: url)
        self.source = .file(file)
        self.size = file.size
        self.path = url.path
    }

    /// Reads through `read`, which returns exactly the bytes of the range it is given
    /// (a network stream, say); `size` is the whole size, `name` names it in errors.
    public init(size: Int64, name: String?, read: @escaping @Sendable (Range<Int64>) throws(ReelError) -> [UInt8]) {
        self.source = .reader(read)
        self.size = size
        self.path = name
    }

    /// The bytes of `range`.
    public func read(_ range: Range<Int64>) throws(ReelError) -> Data {
        Data(try readBytes(range))
    }

    func readBytes(_ range: Range<Int64>) throws(ReelError) -> [UInt8] {
        guard range.lowerBound >= 0, range.upperBound <= size else {
            throw ReelError(.corruptData, "MP4: bytes \(range.lowerBound)..<\(range.upperBound) are outside the file (\(size) bytes)", path: path)
        }
        switch source {
        case .memory(let bytes): return Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)])
        case .file(let file): return try file.read(range, path: path)
        case .reader(let read):
            let bytes = try read(range)
            guard bytes.count == range.count else {
                throw ReelError(.corruptData, "MP4: reading \(range.lowerBound)..<\(range.upperBound) gave \(bytes.count) bytes", path: path)
            }
            return bytes
        }
    }

    /// The top-level boxes.
    public func topLevelBoxes() throws(ReelError) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset: Int64 = 0
        while offset < size {
            let headerBytes = try readBytes(offset..<min(size, offset + 32))
            let found: [MP4Box]
            do {
                // Parse one header: pretend the rest of the file is this box's parent.
                found = try MP4Box.parse(headerBytes, range: 0..<headerBytes.count, base: offset, parent: "the file", headerOnly: size - offset)
            } catch {
                throw ReelError(error.code, error.message, path: path)
            }
            guard let box = found.first else { break }
            boxes.append(box)
            offset = box.end
            guard boxes.count < 1_000_000 else { throw ReelError(.corruptData, "MP4: more than a million top-level boxes", path: path) }
        }
        return boxes
    }

    /// The `moov` box's bytes and the box.
    func moov() throws(ReelError) -> (box: MP4Box, bytes: [UInt8]) {
        guard let moov = try topLevelBoxes().first(where: { $0.type == "moov" }) else {
            throw ReelError(.unsupportedFormat, "MP4: no 'moov' box: not an MP4 or QuickTime file, or an unfinished one", path: path)
        }
        guard moov.size <= Self.maximumMoovSize else {
            throw ReelError(.unsupportedFormat, "MP4: 'moov' is \(moov.size) bytes, more than the \(Self.maximumMoovSize) this reader loads", path: path)
        }
        return (moov, try readBytes(moov.offset..<moov.end))
    }

    /// Every track in `moov`, in file order.
    public func tracks() throws(ReelError) -> [MP4Track] {
        let (box, bytes) = try moov()
        do {
            let children = try MP4Box.parse(bytes, range: box.headerSize..<bytes.count, base: box.offset, parent: "moov")
            return try children.filter { $0.type == "trak" }.map { trak throws(ReelError) in
                try MP4Track(parsing: bytes, box: trak, base: box.offset)
            }
        } catch {
            throw ReelError(error.code, error.message, path: path)
        }
    }

    /// The bytes of one sample.
    public func data(of sample: MP4Sample) throws(ReelError) -> Data {
        let (end, overflow) = sample.offset.addingReportingOverflow(Int64(sample.size))
        guard !overflow, sample.offset >= 0, sample.size >= 0 else {
            throw ReelError(.corruptData, "MP4: sample \(sample.index) at offset \(sample.offset) (\(sample.size) bytes) is outside any file", path: path)
        }
        return try read(sample.offset..<end)
    }
}

extension MP4Box {
    /// Parses the one box header at the start of `bytes`, whose box may extend `available` bytes.
    static func parse(_ bytes: [UInt8], range: Range<Int>, base: Int64, parent: String, headerOnly available: Int64) throws(ReelError) -> [MP4Box] {
        let left = range.count
        guard left >= 8 else {
            if bytes[range].allSatisfy({ $0 == 0 }) { return [] }
            throw ReelError.truncated("MP4", "box header in \(parent)", offset: Int(base), needed: 8, available: left)
        }
        var size = Int64(ByteReader.uintBE(bytes, at: 0, count: 4))
        let type = FourCC(bytes: bytes[4..<8])
        var header = 8
        if size == 1 {
            guard left >= 16 else { throw ReelError.truncated("MP4", "64-bit size of '\(type)'", offset: Int(base), needed: 16, available: left) }
            let large = ByteReader.uintBE(bytes, at: 8, count: 8)
            size = large > UInt64(Int64.max) ? Int64.max : Int64(large)
            header = 16
        } else if size == 0 {
            size = available
        }
        if type == "uuid" { header += 16 }
        guard size >= Int64(header) else {
            throw ReelError.corrupt("MP4", "'\(type)' in \(parent) claims \(size) bytes, less than its \(header)-byte header", offset: Int(base))
        }
        guard size <= available else {
            throw ReelError.corrupt("MP4", "'\(type)' in \(parent) claims \(size) bytes but only \(available) remain", offset: Int(base))
        }
        let userType = type == "uuid" && left >= header ? Array(bytes[(header - 16)..<header]) : nil
        return [MP4Box(type: type, offset: base, size: size, headerSize: header, userType: userType)]
    }
}

/// A file read in bounded ranges. A class because it owns the open handle; reads are
/// serialised by a lock because a seek and the read after it must not interleave.
final class FileSource: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    let size: Int64

    init(url: URL) throws(ReelError) {
        do {
            handle = try FileHandle(forReadingFrom: url)
            size = Int64(try handle.seekToEnd())
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw ReelError(exists ? .unreadable : .fileNotFound, exists ? "cannot read the file" : "no such file", path: url.path, underlying: error)
        }
    }

    deinit { try? handle.close() }

    func read(_ range: Range<Int64>, path: String?) throws(ReelError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        do {
            try handle.seek(toOffset: UInt64(range.lowerBound))
            let data = try handle.read(upToCount: Int(range.count)) ?? Data()
            guard data.count == range.count else {
                throw ReelError(
                    .corruptData, "MP4: the file ended \(range.count - data.count) bytes early reading \(range.lowerBound)..<\(range.upperBound)", path: path)
            }
            return [UInt8](data)
        } catch let error as ReelError {
            throw error
        } catch {
            throw ReelError(.unreadable, "MP4: reading bytes \(range.lowerBound)..<\(range.upperBound) failed", path: path, underlying: error)
        }
    }
}
