/* Preloaded (LD_PRELOAD) into the GUI tests of the sanitizer suite only (scripts/sanitize.sh).
 *
 * Mesa's GL driver is a library GLFW loads with dlopen and unloads with dlclose when the
 * window closes. Whatever the driver still held then was allocated by code that is gone
 * at exit, so LeakSanitizer reports it as "#1 <unknown module>": nothing a suppression
 * could name, and not a leak of ours. With dlclose a no-op the driver stays mapped until
 * the process ends: LeakSanitizer scans its data like any loaded library's, and what the
 * driver keeps reachable is no longer reported, while every allocation of the app is
 * checked as before. Anything the driver truly leaks is named by tests/sanitizers/lsan.supp. */
int dlclose(void* handle) {
    (void)handle;
    return 0;
}
