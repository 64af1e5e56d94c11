// The splits every fuzz target feeds its input in, derived from the input itself so a
// reproducer replays the same way. Compiled into each target by fuzz/run.sh.

/// FNV-1a, to seed the chunking deterministically from the input.
func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return hash
}

/// Cuts of pseudo-random sizes 1...16 (and sometimes larger), seeded by the input.
func randomCuts(_ input: [UInt8]) -> [Int] {
    var state = fnv1a(input) | 1
    var cuts: [Int] = []
    var offset = 0
    while offset < input.count {
        // xorshift64*
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let random = state &* 0x2545_F491_4F6C_DD1D
        let size = random & 7 == 0 ? Int((random >> 8) % 256) + 1 : Int((random >> 8) % 16) + 1
        offset += size
        if offset < input.count { cuts.append(offset) }
    }
    return cuts
}
