import ReelCore

/// An output made from several tracks of a reader's file, which it reads through readers
/// of its own when the reader starts: Reel's `AssetReaderAudioMixOutput`, whose mixer is a
/// layer above ReelIO.
///
/// ``AssetReader/add(_:)-(AssetReaderCompositeOutput)`` checks that every track is one of
/// the reader's file and hands the output the reader to check its own settings against;
/// ``AssetReader/startReading()`` prepares and starts it over the reader's time range, and
/// ``AssetReader/cancelReading()`` cancels it. It counts as one output in the reader's
/// ``AssetReader/status``: the reader completes once it says it has finished.
public protocol AssetReaderCompositeOutput: AnyObject, Sendable {
    /// The tracks it reads, all of the reader's file.
    var sourceTracks: [AssetTrack] { get }

    /// Called once by ``AssetReader/add(_:)-(AssetReaderCompositeOutput)`` after the tracks
    /// are checked; throws, saying why, when the output cannot read them (its settings do
    /// not fit them, it already belongs to a reader). Nothing is read here.
    func attach(to reader: AssetReader) throws(ReelError)

    /// Checks that the output can read `timeRange` of the reader's file and plans it;
    /// ``AssetReader/startReading()`` throws what this throws. Nothing is read here.
    func prepare(timeRange: TimeRange) throws(ReelError)

    /// Starts reading what ``prepare(timeRange:)`` planned. `finished` is to be called
    /// once: with nil after the last sample was given, or with the error that ended the
    /// reading.
    func start(finished: @escaping @Sendable (ReelError?) -> Void)

    /// Stops reading: the consumer's next read throws `error`.
    func cancel(_ error: ReelError)
}
