@_exported import ReelCaptions
@_exported import ReelComposition
@_exported import ReelCore
@_exported import ReelIO
@_exported import ReelMetadata
