#pragma once
// How the process keeps freed memory (glibc malloc). By default glibc hands large blocks
// (from 128 KiB, adapting up to 32 MiB) back to the kernel on free and maps fresh pages on
// the next allocation; on these VMs the first touch of each 4 KiB page costs several µs,
// so a live d_model edit spent 0.27 s of its 0.28 s making a new model faulting in
// ~170 MB of weights and packed panels (BM_ModelRandom, issue 6). Called at start by the
// app and the CLI, and by the thread pool when it starts (so tests and benchmarks get it
// too; calling it again changes nothing). With other C libraries these are no-ops.
namespace hs {

// Blocks up to 32 MiB come from the heap and freed memory stays there for reuse, in one
// arena shared by all threads (a block freed by the worker serves the next model built
// by the pool's threads).
void keep_freed_memory();

// Gives the heap's free pages back to the kernel (after a long idle spell, so that a
// closed large model does not stay resident). Returns whether any memory was released.
bool release_free_memory();

}  // namespace hs
