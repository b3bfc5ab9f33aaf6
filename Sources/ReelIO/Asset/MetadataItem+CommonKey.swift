import ReelCore

extension MetadataItem {
    /// The key of the common key space this item stands for (AVMetadataItem.commonKey):
    /// its own key for a common item (`title`), the common meaning of a key of another key
    /// space as Reel maps them (`udta/©nam` and `itsk/©nam` are `title`, `org.id3/TCON` is
    /// `type`, `mdta/com.apple.quicktime.make` is `make`); nil when the key has none.
    public var commonKey: String? {
        if keySpace == .common { return key }
        let id = identifier
        return ContainerMetadata.commonSources.first { entry in entry.sources.contains { ContainerMetadata.matches(id, $0) } }?.common.key
    }
}
