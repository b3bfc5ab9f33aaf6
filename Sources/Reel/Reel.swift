@_exported import ReelCore
@_exported import ReelMetadata
@_exported import ReelCaptions
@_exported import ReelIO
@_exported import ReelComposition
