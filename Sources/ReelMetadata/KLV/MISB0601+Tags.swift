extension MISB0601 {
    /// The tags decoded to values (ST 0601 tags 1-65 and 75); others are kept raw.
    public static let tags: [Int: TagSpec] = {
        func s(_ name: String) -> TagSpec { TagSpec(name: name, kind: .string, unit: nil) }
        func u(_ name: String, _ bytes: Int, _ unit: String? = nil) -> TagSpec { TagSpec(name: name, kind: .unsigned(bytes), unit: unit) }
        func i(_ name: String, _ bytes: Int, _ unit: String? = nil) -> TagSpec { TagSpec(name: name, kind: .signed(bytes), unit: unit) }
        func mu(_ name: String, _ bytes: Int, _ lo: Double, _ hi: Double, _ unit: String) -> TagSpec {
            TagSpec(name: name, kind: .mappedUnsigned(bytes: bytes, min: lo, max: hi), unit: unit)
        }
        func ms(_ name: String, _ bytes: Int, _ range: Double, _ unit: String) -> TagSpec {
            TagSpec(name: name, kind: .mappedSigned(bytes: bytes, range: range), unit: unit)
        }
        return [
            1: u("Checksum", 2),
            2: TagSpec(name: "Precision Time Stamp", kind: .time, unit: nil),
            3: s("Mission ID"),
            4: s("Platform Tail Number"),
            5: mu("Platform Heading Angle", 2, 0, 360, "deg"),
            6: ms("Platform Pitch Angle", 2, 20, "deg"),
            7: ms("Platform Roll Angle", 2, 50, "deg"),
            8: u("Platform True Airspeed", 1, "m/s"),
            9: u("Platform Indicated Airspeed", 1, "m/s"),
            10: s("Platform Designation"),
            11: s("Image Source Sensor"),
            12: s("Image Coordinate System"),
            13: ms("Sensor Latitude", 4, 90, "deg"),
            14: ms("Sensor Longitude", 4, 180, "deg"),
            15: mu("Sensor True Altitude", 2, -900, 19000, "m"),
            16: mu("Sensor Horizontal Field of View", 2, 0, 180, "deg"),
            17: mu("Sensor Vertical Field of View", 2, 0, 180, "deg"),
            18: mu("Sensor Relative Azimuth Angle", 4, 0, 360, "deg"),
            19: ms("Sensor Relative Elevation Angle", 4, 180, "deg"),
            20: mu("Sensor Relative Roll Angle", 4, 0, 360, "deg"),
            21: mu("Slant Range", 4, 0, 5_000_000, "m"),
            22: mu("Target Width", 2, 0, 10_000, "m"),
            23: ms("Frame Center Latitude", 4, 90, "deg"),
            24: ms("Frame Center Longitude", 4, 180, "deg"),
            25: mu("Frame Center Elevation", 2, -900, 19000, "m"),
            26: ms("Offset Corner Latitude Point 1", 2, 0.075, "deg"),
            27: ms("Offset Corner Longitude Point 1", 2, 0.075, "deg"),
            28: ms("Offset Corner Latitude Point 2", 2, 0.075, "deg"),
            29: ms("Offset Corner Longitude Point 2", 2, 0.075, "deg"),
            30: ms("Offset Corner Latitude Point 3", 2, 0.075, "deg"),
            31: ms("Offset Corner Longitude Point 3", 2, 0.075, "deg"),
            32: ms("Offset Corner Latitude Point 4", 2, 0.075, "deg"),
            33: ms("Offset Corner Longitude Point 4", 2, 0.075, "deg"),
            34: u("Icing Detected", 1),
            35: mu("Wind Direction", 2, 0, 360, "deg"),
            36: mu("Wind Speed", 1, 0, 100, "m/s"),
            37: mu("Static Pressure", 2, 0, 5000, "mbar"),
            38: mu("Density Altitude", 2, -900, 19000, "m"),
            39: i("Outside Air Temperature", 1, "°C"),
            40: ms("Target Location Latitude", 4, 90, "deg"),
            41: ms("Target Location Longitude", 4, 180, "deg"),
            42: mu("Target Location Elevation", 2, -900, 19000, "m"),
            43: u("Target Track Gate Width", 1, "px/2"),
            44: u("Target Track Gate Height", 1, "px/2"),
            45: mu("Target Error Estimate CE90", 2, 0, 4095, "m"),
            46: mu("Target Error Estimate LE90", 2, 0, 4095, "m"),
            47: u("Generic Flag Data", 1),
            48: TagSpec(name: "Security Local Set", kind: .raw, unit: nil),
            49: mu("Differential Pressure", 2, 0, 5000, "mbar"),
            50: ms("Platform Angle of Attack", 2, 20, "deg"),
            51: ms("Platform Vertical Speed", 2, 180, "m/s"),
            52: ms("Platform Sideslip Angle", 2, 20, "deg"),
            53: mu("Airfield Barometric Pressure", 2, 0, 5000, "mbar"),
            54: mu("Airfield Elevation", 2, -900, 19000, "m"),
            55: mu("Relative Humidity", 1, 0, 100, "%"),
            56: u("Platform Ground Speed", 1, "m/s"),
            57: mu("Ground Range", 4, 0, 5_000_000, "m"),
            58: mu("Platform Fuel Remaining", 2, 0, 10_000, "kg"),
            59: s("Platform Call Sign"),
            60: u("Weapon Load", 2),
            61: u("Weapon Fired", 1),
            62: u("Laser PRF Code", 2),
            63: u("Sensor Field of View Name", 1),
            64: mu("Platform Magnetic Heading", 2, 0, 360, "deg"),
            65: u("UAS Datalink LS Version Number", 1),
            75: mu("Sensor Ellipsoid Height", 2, -900, 19000, "m"),
        ]
    }()
}
