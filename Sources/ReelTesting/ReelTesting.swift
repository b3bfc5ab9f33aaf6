@_exported import ReelComposition
@_exported import ReelMetadata
@_exported import ReelCore
