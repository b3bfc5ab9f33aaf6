/// Whether an H.264 packet holds a picture that no other picture refers to: every slice of
/// it has `nal_ref_idc` 0, which ITU-T H.264 (7.4.1) defines as a picture not used for the
/// inter prediction of any other. A read that does not deliver such a picture leaves it
/// out of the decoder: every other picture decodes exactly as it would have.
///
/// Why read the NAL unit headers here: FFmpeg's decoder skips these pictures itself
/// (`skip_frame = AVDISCARD_NONREF`), but only once a frame thread has taken the packet,
/// and each thread then waits for the picture before it; a skipped packet costs a thread's
/// turn, about half a picture's decoding on two threads. FFmpeg has no public call that
/// says whether a packet is a reference (its parsers report the picture type, not
/// `nal_ref_idc`), and the demuxer's `AV_PKT_FLAG_DISPOSABLE` comes from the file's `sdtp`
/// box, which only some writers set.
package enum H264NonReferencePicture {
    /// Whether `packet` holds at least one slice (NAL unit types 1 to 5) and no slice with a
    /// `nal_ref_idc` other than 0. NAL units are length-prefixed by `lengthSize` bytes (1, 2
    /// or 4: MP4, Matroska; ISO/IEC 14496-15) or, when it is nil, follow start codes (Annex
    /// B: MPEG-TS). False for bytes that do not parse, and for a layered stream's units
    /// (types 14, 15, 20, 21), whose pictures other layers may refer to.
    package static func holds(_ packet: UnsafeRawBufferPointer, lengthSize: Int?) -> Bool {
        var slices = 0
        var referenced = false
        let visit = { (header: UInt8) -> Bool in
            let type = header & 0x1F
            switch type {
            case 1...5:
                slices += 1
                if header & 0x60 != 0 { referenced = true }
            case 14, 15, 20, 21:
                referenced = true
            default:
                break
            }
            return !referenced
        }
        let parsed = lengthSize.map { walkLengthPrefixed(packet, lengthSize: $0, visit) } ?? walkAnnexB(packet, visit)
        return parsed && slices > 0 && !referenced
    }

    /// Gives `visit` each NAL unit's header byte until it returns false; false when the
    /// lengths do not add up to the packet's size.
    private static func walkLengthPrefixed(_ b: UnsafeRawBufferPointer, lengthSize: Int, _ visit: (UInt8) -> Bool) -> Bool {
        guard (1...4).contains(lengthSize) else { return false }
        var i = 0
        while i < b.count {
            guard b.count - i > lengthSize else { return false }
            var n = 0
            for k in 0..<lengthSize { n = n << 8 | Int(b[i + k]) }
            i += lengthSize
            guard n > 0, n <= b.count - i else { return false }
            if !visit(b[i]) { return true }
            i += n
        }
        return true
    }

    /// Gives `visit` the header byte after each start code (`00 00 01`) until it returns
    /// false; false when the packet has no start code.
    private static func walkAnnexB(_ b: UnsafeRawBufferPointer, _ visit: (UInt8) -> Bool) -> Bool {
        var found = false
        var i = 0
        while i + 3 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                found = true
                if !visit(b[i + 3]) { return true }
                i += 3
            } else {
                i += 1
            }
        }
        return found
    }
}
