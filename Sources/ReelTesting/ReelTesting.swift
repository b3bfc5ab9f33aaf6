@_exported import ReelComposition
@_exported import ReelMetadata
