# Shared by the benchmark scripts: how mockbackend is built for measuring, the way the
# Docker image builds it (docker/Dockerfile): release, the Swift runtime linked in
# statically, and a position-dependent executable. Not being PIE leaves ~45,000 relative
# relocations out of the binary (the loader would otherwise read 1 MiB of them and write
# the data they point at on every start): ~1 MiB less RSS and a faster start, at the cost
# of a fixed load address for the executable's own code (shared libraries keep ASLR).
# Nor does it export its ~5,500 Swift symbols to the dynamic symbol table: the loader
# looks up every shared library's symbols in the executable's table first, reading it
# page by page (~150 KiB of RSS); crash backtraces read the full symbol table instead.
MB_RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie
    -Xlinker --no-export-dynamic)
