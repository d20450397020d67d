// aclnn-bindgen bindings: waiting for the device without the GIL (wait_interruptibly: streams.cpp).
#ifndef ACLNN_BINDING_GIL_H_
#define ACLNN_BINDING_GIL_H_

#include <pybind11/pybind11.h>

#include <cxxabi.h>

#include <exception>
#include <functional>
#include <type_traits>

#include "acl/acl.h"

namespace aclnn_binding {
namespace py = pybind11;

// Runs `wait` (a call that blocks on the device, or the library's work) without the GIL. The GIL is
// taken back in plain code, never in a destructor or a catch-all handler: at interpreter exit a
// daemon thread that asks for the GIL is ended by pthread_exit, whose forced unwinding must not
// cross a noexcept frame nor be swallowed ("FATAL: exception not rethrown"). A thread ended so
// leaves through here; the objects of its call are abandoned with the process.
template <class Wait>
auto without_gil(Wait&& wait) -> decltype(wait()) {
  if (!PyGILState_Check()) return wait();  // a thread without the GIL (a destructor at thread exit)
  PyThreadState* state = PyEval_SaveThread();
  std::exception_ptr error;
  if constexpr (std::is_void<decltype(wait())>::value) {
    try {
      wait();
    } catch (abi::__forced_unwind&) {
      throw;  // the thread is being cancelled: no Python left to return to
    } catch (...) {
      error = std::current_exception();
    }
    PyEval_RestoreThread(state);
    if (error) std::rethrow_exception(error);
  } else {
    decltype(wait()) result{};
    try {
      result = wait();
    } catch (abi::__forced_unwind&) {
      throw;
    } catch (...) {
      error = std::current_exception();
    }
    PyEval_RestoreThread(state);
    if (error) std::rethrow_exception(error);
    return result;
  }
}

// Whether a Python thread other than the calling one (which holds the GIL) exists in its
// interpreter. A thread that appears just after the check waits for the GIL until the caller's
// short critical work is done, as it would behind any C call that keeps the GIL.
inline bool other_python_threads() {
  PyThreadState* self = PyThreadState_Get();
  PyThreadState* head = PyInterpreterState_ThreadHead(PyThreadState_GetInterpreter(self));
  return head != self || PyThreadState_Next(head) != nullptr;
}

// Waits without the GIL until `done` says the device work is finished, then returns `finish()`
// (the blocking synchronisation: at once, reporting a fault). In the main thread Python's signal
// handlers run every 20 ms meanwhile, so that Ctrl-C raises KeyboardInterrupt
// (py::error_already_set) as NumPy's and PyTorch's long operations do; the work goes on. Other
// threads, which signals never reach, and a `done` that fails wait in `finish` directly.
aclError wait_interruptibly(const std::function<aclError(bool*)>& done, const std::function<aclError()>& finish);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_GIL_H_
