import Foundation

@testable import ReelMetadata

/// A minimal MPEG-TS demuxer for tests: finds the KLV stream in the PMT (stream type
/// 0x06 with a `KLVA` registration, or 0x15) and reassembles its PES packets.
enum TestTransportStream {
    struct PES {
        var data: Data
        var pts: MediaTime?
    }

    static func klvPackets(_ ts: Data) -> [PES] {
        let b = [UInt8](ts)
        var pmtPID: Int?
        var klvPID: Int?
        var out: [PES] = []
        var current: [UInt8] = []
        var currentPTS: MediaTime?
        var started = false
        func flush() {
            if started { out.append(PES(data: Data(current), pts: currentPTS)) }
            current = []
            started = false
        }
        var i = 0
        while i + 188 <= b.count {
            defer { i += 188 }
            guard b[i] == 0x47 else { continue }
            let start = b[i + 1] & 0x40 != 0
            let pid = Int(b[i + 1] & 0x1F) << 8 | Int(b[i + 2])
            let afc = (b[i + 3] >> 4) & 0x3
            var p = i + 4
            if afc == 2 || afc == 3 { p += 1 + Int(b[i + 4]) }
            guard afc & 1 == 1, p < i + 188 else { continue }
            let payload = Array(b[p..<(i + 188)])
            if pid == 0, start {
                // PAT: pointer, table; first program's PMT PID.
                let t = Int(payload[0]) + 1
                pmtPID = Int(payload[t + 10] & 0x1F) << 8 | Int(payload[t + 11])
            } else if pid == pmtPID, start, klvPID == nil {
                let t = Int(payload[0]) + 1
                let sectionLength = Int(payload[t + 1] & 0x0F) << 8 | Int(payload[t + 2])
                let infoLength = Int(payload[t + 10] & 0x0F) << 8 | Int(payload[t + 11])
                var e = t + 12 + infoLength
                let end = t + 3 + sectionLength - 4
                while e + 5 <= end {
                    let type = payload[e]
                    let epid = Int(payload[e + 1] & 0x1F) << 8 | Int(payload[e + 2])
                    let esLength = Int(payload[e + 3] & 0x0F) << 8 | Int(payload[e + 4])
                    let descriptors = payload[(e + 5)..<min(end, e + 5 + esLength)]
                    let hasKLVA = Data(descriptors).range(of: Data("KLVA".utf8)) != nil
                    if type == 0x15 || (type == 0x06 && hasKLVA) { klvPID = epid }
                    e += 5 + esLength
                }
            } else if pid == klvPID {
                if start {
                    flush()
                    // PES header: 00 00 01 sid len(2) flags(2) hdrlen
                    guard payload.count >= 9, payload[0] == 0, payload[1] == 0, payload[2] == 1 else { continue }
                    let flags = payload[7]
                    let headerLength = Int(payload[8])
                    currentPTS = nil
                    if flags & 0x80 != 0 {
                        let q = Array(payload[9..<14])
                        let pts = Int64(q[0] >> 1 & 0x07) << 30 | Int64(q[1]) << 22 | Int64(q[2] >> 1) << 15 | Int64(q[3]) << 7 | Int64(q[4] >> 1)
                        currentPTS = MediaTime(value: pts, timescale: 90000)
                    }
                    current = Array(payload[(9 + headerLength)...])
                    started = true
                } else if started {
                    current += payload
                }
            }
        }
        flush()
        return out
    }
}
