#pragma once
// Reading a memory-mapped file safely. A page of a map that lies past the end of its file
// (another program truncated the file after it was mapped) is a SIGBUS when it is touched,
// which would end the process. run_unless_bus_error runs a function that reads a map and,
// should that happen, returns false instead, so its caller can read the bytes again with
// pread (core/io/read_only_file.h), which reports the truncation as an error naming the
// tensor.
//
// How: the first call installs a SIGBUS handler (SA_NODEFER, so the signal is not left
// blocked); each call sets this thread's landing point (sigsetjmp) around the function,
// and the handler jumps back to it. A SIGBUS outside any call goes to the action there
// was before (the default: the process ends, as without the handler): a fault by running
// again, a signal sent by another process by being raised again.
// Nothing the function calls may need unwinding: the jump runs no destructors (the stored
// products' conversion kernels own nothing).

namespace hs::kernels {

// Calls fn(context); false when it was stopped by a SIGBUS, true when it returned.
bool run_unless_bus_error(void (*fn)(const void*), const void* context);

// How many calls a SIGBUS has stopped in this process (tests check the path ran).
int bus_errors_stopped();

template <typename F>
bool run_unless_bus_error(const F& f) {
    return run_unless_bus_error([](const void* c) { (*static_cast<const F*>(c))(); }, &f);
}

}  // namespace hs::kernels
