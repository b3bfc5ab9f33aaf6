@_exported import ReelComposition
@_exported import ReelCore
@_exported import ReelMetadata
