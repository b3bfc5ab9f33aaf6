@_exported import ReelCore

// ReelMetadata: pure-Swift codecs for timed metadata. Bytes in, TimedMetadataGroups out,
// and back. No FFmpeg.
//
// Entry points:
// - TimedMetadataDecoder(format:keys:).groups(for: SampleBuffer): any supported track
//   (gpmd, mebx, camm, klv/KLVA) sample to groups.
// - GPMF.groups(payload:timeRange:), GPMF.fixes(payload:timeRange:), GPMF.series(payload:),
//   GPMF.splitStream(_:), GPMFNode.parse(_:) / encoded(): GoPro GPMF reading and the KLV tree.
// - GPMFWriter.payloads(for:payloadDuration:options:), GPMFWriter.payload(fixes:options:):
//   GPS5/GPS9 payloads for a gpmd track; GPMFWriter.payload(groups:timeRange:options:):
//   a payload keeping every gpmf/KEY item of decoded groups.
// - MP4File(contentsOf:) / MP4File(data:): tracks(), MP4Track.samples(), data(of:),
//   sample entries with mebx keys (QuickTimeMetadataKey).
// - QuickTimeMetadataSample.items/group(sample:keys:timeRange:), ISO6709.parse/string.
// - CAMM.records/items/group(sample:...), CAMM.encode.
// - KLV.packets(in:), KLV.groups(packets:), MISB0601.decode/encode, EG0104.decode.
// - GPX.fixes/groups(from:mediaStartTime:)/document(for:), TelemetryCSV.groups(from:)/document(for:).
//
// Every reader adds the normalised GPS items (GPSFix.metadataItems) next to its own
// keyed items (gpmf/KEY, mdta/KEY, camm/N, klv/0601.N, klv/0104.NAME), and every parser
// throws a ReelError (.metadataFormat or .corruptData, naming the offset and key) on
// bad bytes rather than trapping.
