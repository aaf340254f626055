// ThreadSanitizer support for Debian's prebuilt Abseil.
//
// Debian's libabsl_synchronization is not built with -fsanitize=thread, so
// TSan cannot see absl::Mutex hand-offs and reports every access a Mutex
// guards as a race. This shim, LD_PRELOADed into the processes of a TSan test
// run, interposes the Mutex and CondVar entry points: each forwards to the
// real function (dlsym RTLD_NEXT) and tells TSan that a lock release
// happens-before the next acquisition of the same mutex. Real races in our
// code — accesses without the mutex — are still reported. In a process
// without TSan (a shell a script job starts) the annotations are absent and
// the wrappers only forward.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "absl/synchronization/mutex.h"

namespace {

template <typename Fn>
Fn Real(const char* mangled) {
  void* p = dlsym(RTLD_NEXT, mangled);
  if (p == nullptr) {
    std::fprintf(stderr, "absl_tsan_shim: %s not found in Abseil; update the shim\n", mangled);
    std::abort();
  }
  return reinterpret_cast<Fn>(p);
}

extern "C" void __tsan_acquire(void* addr) __attribute__((weak));
extern "C" void __tsan_release(void* addr) __attribute__((weak));
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line) __attribute__((weak));
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line) __attribute__((weak));
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line) __attribute__((weak));
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line) __attribute__((weak));

// Inside Abseil, a thread that unlocks evaluates other threads' wait
// conditions; those reads are ordered by the mutex, which TSan cannot see
// inside the uninstrumented library, so they are ignored (as Abseil itself
// does when it is built with TSan).
struct IgnoreInside {
  IgnoreInside() {
    if (AnnotateIgnoreReadsBegin == nullptr) return;
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  }
  ~IgnoreInside() {
    if (AnnotateIgnoreReadsEnd == nullptr) return;
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  }
};

void Acquire(const void* mu) {
  if (__tsan_acquire != nullptr) __tsan_acquire(const_cast<void*>(mu));
}
void Release(const void* mu) {
  if (__tsan_release != nullptr) __tsan_release(const_cast<void*>(mu));
}

using absl::Condition;
using absl::CondVar;
using absl::Duration;
using absl::Mutex;
using absl::Time;

#define GNOMON_REAL(var, type, name) static const auto var = Real<type>(name)

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  GNOMON_REAL(real, void (*)(Mutex*), "_ZN4absl7debian35Mutex4LockEv");
  [&] {
    IgnoreInside ignore;
    return real(this);
  }();
  Acquire(this);
}

void Mutex::Unlock() {
  GNOMON_REAL(real, void (*)(Mutex*), "_ZN4absl7debian35Mutex6UnlockEv");
  Release(this);
  [&] {
    IgnoreInside ignore;
    return real(this);
  }();
}

void Mutex::ReaderLock() {
  GNOMON_REAL(real, void (*)(Mutex*), "_ZN4absl7debian35Mutex10ReaderLockEv");
  [&] {
    IgnoreInside ignore;
    return real(this);
  }();
  Acquire(this);
}

void Mutex::ReaderUnlock() {
  GNOMON_REAL(real, void (*)(Mutex*), "_ZN4absl7debian35Mutex12ReaderUnlockEv");
  Release(this);
  [&] {
    IgnoreInside ignore;
    return real(this);
  }();
}

bool Mutex::TryLock() {
  GNOMON_REAL(real, bool (*)(Mutex*), "_ZN4absl7debian35Mutex7TryLockEv");
  bool ok = [&] {
    IgnoreInside ignore;
    return real(this);
  }();
  if (ok) Acquire(this);
  return ok;
}

bool Mutex::ReaderTryLock() {
  GNOMON_REAL(real, bool (*)(Mutex*), "_ZN4absl7debian35Mutex13ReaderTryLockEv");
  bool ok = [&] {
    IgnoreInside ignore;
    return real(this);
  }();
  if (ok) Acquire(this);
  return ok;
}

void Mutex::Await(const Condition& cond) {
  GNOMON_REAL(real, void (*)(Mutex*, const Condition&),
              "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE");
  Release(this);
  [&] {
    IgnoreInside ignore;
    return real(this, cond);
  }();
  Acquire(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  GNOMON_REAL(real, bool (*)(Mutex*, const Condition&, Duration),
              "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  Release(this);
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, cond, timeout);
  }();
  Acquire(this);
  return r;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  GNOMON_REAL(real, bool (*)(Mutex*, const Condition&, Time),
              "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  Release(this);
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, cond, deadline);
  }();
  Acquire(this);
  return r;
}

void Mutex::LockWhen(const Condition& cond) {
  GNOMON_REAL(real, void (*)(Mutex*, const Condition&),
              "_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE");
  [&] {
    IgnoreInside ignore;
    return real(this, cond);
  }();
  Acquire(this);
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  GNOMON_REAL(real, bool (*)(Mutex*, const Condition&, Duration),
              "_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, cond, timeout);
  }();
  Acquire(this);
  return r;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  GNOMON_REAL(real, bool (*)(Mutex*, const Condition&, Time),
              "_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, cond, deadline);
  }();
  Acquire(this);
  return r;
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  GNOMON_REAL(real, void (*)(Mutex*, const Condition&),
              "_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE");
  [&] {
    IgnoreInside ignore;
    return real(this, cond);
  }();
  Acquire(this);
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, Duration timeout) {
  GNOMON_REAL(real, bool (*)(Mutex*, const Condition&, Duration),
              "_ZN4absl7debian35Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, cond, timeout);
  }();
  Acquire(this);
  return r;
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline) {
  GNOMON_REAL(real, bool (*)(Mutex*, const Condition&, Time),
              "_ZN4absl7debian35Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, cond, deadline);
  }();
  Acquire(this);
  return r;
}

void CondVar::Wait(Mutex* mu) {
  GNOMON_REAL(real, void (*)(CondVar*, Mutex*), "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE");
  Release(mu);
  [&] {
    IgnoreInside ignore;
    return real(this, mu);
  }();
  Acquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  GNOMON_REAL(real, bool (*)(CondVar*, Mutex*, Duration),
              "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  Release(mu);
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, mu, timeout);
  }();
  Acquire(mu);
  return r;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  GNOMON_REAL(real, bool (*)(CondVar*, Mutex*, Time),
              "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  Release(mu);
  bool r = [&] {
    IgnoreInside ignore;
    return real(this, mu, deadline);
  }();
  Acquire(mu);
  return r;
}

void ReleasableMutexLock::Release() {
  GNOMON_REAL(real, void (*)(ReleasableMutexLock*),
              "_ZN4absl7debian319ReleasableMutexLock7ReleaseEv");
  // The lock's only member is the Mutex* it holds.
  ::Release(*reinterpret_cast<Mutex**>(this));
  [&] {
    IgnoreInside ignore;
    return real(this);
  }();
}

ABSL_NAMESPACE_END
}  // namespace absl
