// The Abseil Mutex mode of gnomon's programs. Debian builds Abseil without
// NDEBUG, so its Mutex checks for lock-order cycles at every Lock: it records
// each acquisition in a process-wide graph behind one global lock. That is a
// debugging aid; in a release build of gnomond or an executor it makes every
// lock of every thread take that global lock too (seen as GraphCycles in
// perf under a burst). Release programs turn it off at start-up; debug and
// sanitizer builds (no NDEBUG) keep it.
//
//   int main(int argc, char** argv) {
//     gnomon::UseReleaseMutexMode();
//     ...
//   }
//
// Thread safety: call before other threads start.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_MUTEX_MODE_H_
#define GNOMON_SERVICES_COMMON_CLIENT_MUTEX_MODE_H_

namespace gnomon {

// Turns Abseil's deadlock detection off when this program was built with
// NDEBUG; does nothing otherwise.
void UseReleaseMutexMode();

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_MUTEX_MODE_H_
