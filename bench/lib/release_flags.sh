# Shared by the benchmark scripts: how mockbackend is built for measuring, the way the
# Docker image builds it (docker/Dockerfile): release, the Swift runtime linked in
# statically, and a position-dependent executable. Not being PIE leaves ~45,000 relative
# relocations out of the binary (the loader would otherwise read 1 MiB of them and write
# the data they point at on every start): ~1 MiB less RSS and a faster start, at the cost
# of a fixed load address for the executable's own code (shared libraries keep ASLR).
MB_RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie)
