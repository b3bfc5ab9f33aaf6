@_exported import ReelCore
