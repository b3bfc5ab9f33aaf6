import Foundation

/// Where the default warning loggers (`RenderDiagnostic.standardErrorLogger`,
/// `MetadataReadWarning.standardErrorLogger`) write their lines: standard error, unless the
/// task that creates a logger binds another destination. A logger keeps the destination it was
/// created with, so a warning raised later on another thread still goes there. `reel`'s
/// commands bind it to their own standard error, which a command run in process collects.
public enum WarningOutput {
    /// Writes one line (with its newline) where warnings go.
    @TaskLocal public static var write: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }
}
