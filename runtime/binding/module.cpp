// aclnn-bindgen: the aclnn._C module: its hand-written part (aclnn.Tensor, the backend, the
// device, statistics, errors), then the generated op wrappers (generated/bindings/module.cpp's
// register_wrappers). The module's init is here, not in a generated unit, so that no generated
// unit includes pybind11 (wrapper.h).
#include <pybind11/stl.h>

#include "aclnn_bindgen/abi_values.h"
#include "aclnn_sim.h"
#include "binding.h"

namespace aclnn_binding {
namespace {

py::object errors_module() { return py::module_::import("aclnn._errors"); }

void raise_failure(const AclnnFailure& f) {
  try {
    py::object error = errors_module().attr("_from_status")(f.status, f.api, f.phase, f.message, f.call);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  } catch (py::error_already_set& e) {
    // aclnn._C used without its package: a plain RuntimeError still says everything.
    std::string text = f.api + (f.api.empty() ? "" : ": ") + f.phase + " returned " + std::to_string(f.status) +
                       (f.message.empty() ? "" : ": " + f.message);
    PyErr_SetString(PyExc_RuntimeError, text.c_str());
  }
}

void raise_backend_error(const char* what) {
  try {
    py::object type = errors_module().attr("BackendError");
    PyErr_SetString(type.ptr(), what);
  } catch (py::error_already_set&) {
    PyErr_SetString(PyExc_OSError, what);
  }
}

py::dict backend_info() {
  auto& backend = aclnn_loader::Backend::get();
  py::dict info;
  info["name"] = aclnn_loader::backend_name(backend.kind());
  info["lib_dir"] = backend.lib_dir();
  info["libraries"] = backend.libraries();
  info["reason"] = backend.reason();
  const auto& abi = backend.abi();
  if (abi.aclrtGetSocName != nullptr && Runtime::alive()) {
    const char* soc = abi.aclrtGetSocName();
    info["soc"] = soc ? py::object(py::str(soc)) : py::object(py::none());
  } else {
    info["soc"] = py::none();
  }
  return info;
}

py::object sim_stats() {
  Runtime::get();  // the counts are only meaningful once the backend is up
  auto fn = reinterpret_cast<decltype(&aclsimGetStats)>(Runtime::get().backend().optional_symbol("aclsimGetStats"));
  if (fn == nullptr) return py::none();  // CANN, or a simulator without statistics
  aclsimStats stats{};
  if (fn(&stats) != 0) return py::none();
  py::dict out;
#define ACLNN_BINDING_STAT(field) out[#field] = stats.field;
  ACLNN_BINDING_STAT(device_allocations)
  ACLNN_BINDING_STAT(device_bytes)
  ACLNN_BINDING_STAT(peak_device_bytes)
  ACLNN_BINDING_STAT(host_allocations)
  ACLNN_BINDING_STAT(host_bytes)
  ACLNN_BINDING_STAT(streams)
  ACLNN_BINDING_STAT(contexts)
  ACLNN_BINDING_STAT(tensors)
  ACLNN_BINDING_STAT(scalars)
  ACLNN_BINDING_STAT(int_arrays)
  ACLNN_BINDING_STAT(float_arrays)
  ACLNN_BINDING_STAT(bool_arrays)
  ACLNN_BINDING_STAT(tensor_lists)
  ACLNN_BINDING_STAT(scalar_lists)
  ACLNN_BINDING_STAT(executors)
  ACLNN_BINDING_STAT(malloc_calls)
  ACLNN_BINDING_STAT(free_calls)
  ACLNN_BINDING_STAT(stream_syncs)
  ACLNN_BINDING_STAT(device_syncs)
  ACLNN_BINDING_STAT(kernels_launched)
  ACLNN_BINDING_STAT(events_recorded)
  ACLNN_BINDING_STAT(events)
#undef ACLNN_BINDING_STAT
  out["live_objects"] = stats.tensors + stats.scalars + stats.int_arrays + stats.float_arrays + stats.bool_arrays +
                        stats.tensor_lists + stats.scalar_lists + stats.executors;
  // The code path of every kernel, elementwise and family (ACLNN_SIM_ISA, else the CPU's widest).
  auto path = reinterpret_cast<decltype(&aclsimKernelPath)>(Runtime::get().backend().optional_symbol("aclsimKernelPath"));
  out["kernel_path"] = path ? py::object(py::str(path())) : py::object(py::none());
  // The path each engine with code per path ran on (aclsimEnginePaths), by engine name.
  auto engines = reinterpret_cast<decltype(&aclsimEnginePaths)>(
      Runtime::get().backend().optional_symbol("aclsimEnginePaths"));
  py::dict engine_paths;
  if (engines) {
    const std::string text = engines();
    for (size_t start = 0; start < text.size();) {
      size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      const std::string entry = text.substr(start, end - start);
      const size_t eq = entry.find('=');
      if (eq != std::string::npos) engine_paths[py::str(entry.substr(0, eq))] = entry.substr(eq + 1);
      start = end + 1;
    }
  }
  out["engine_paths"] = engines ? py::object(engine_paths) : py::object(py::none());
  return out;
}

// The simulator's chip, switched for the rest of the process (aclsimSetSoc): what a test of a
// page's product table needs to see a valid call refused on a chip the page does not support.
void sim_set_soc(const std::string& name) {
  Runtime& runtime = Runtime::get();
  auto fn = reinterpret_cast<decltype(&aclsimSetSoc)>(runtime.backend().optional_symbol("aclsimSetSoc"));
  if (fn == nullptr) {
    throw py::value_error(std::string("sim_set_soc: the ") + aclnn_loader::backend_name(runtime.backend().kind()) +
                          " backend runs on the chip it has");
  }
  if (fn(name.c_str()) != 0) throw py::value_error(runtime.recent_error());
}

py::dict memory_stats(py::object device) {
  Runtime& rt = Runtime::get();
  const int32_t id = device.is_none() ? rt.device() : device.cast<int32_t>();
  rt.require_device(id);
  const MemoryStats s = rt.allocator(id).stats();
  py::dict out;
  out["allocated_bytes"] = s.allocated_bytes;
  out["reserved_bytes"] = s.reserved_bytes;
  out["peak_allocated_bytes"] = s.peak_allocated_bytes;
  out["allocations"] = s.allocations;
  out["mallocs"] = s.mallocs;
  out["frees"] = s.frees;
  out["cache_hits"] = s.cache_hits;
  out["cache_misses"] = s.cache_misses;
  out["cached_descriptors"] = s.cached_descriptors;
  return out;
}

py::dict binding_stats() {
  const Counters& c = counters();
  py::dict out;
  out["calls"] = c.calls.load();
  out["host_to_device"] = c.host_to_device.load();
  out["device_to_host"] = c.device_to_host.load();
  out["device_to_device"] = c.device_to_device.load();
  out["bytes_to_device"] = c.bytes_to_device.load();
  out["bytes_to_host"] = c.bytes_to_host.load();
  out["live_buffers"] = c.live_buffers.load();
  out["live_objects"] = c.live_objects.load();
  out["descriptors_made"] = c.descriptors_made.load();
  out["scalars_made"] = c.scalars_made.load();
  // Kept for reuse, not held by any call or Tensor (ScalarCache).
  out["shared_scalars"] = Runtime::alive() ? static_cast<int64_t>(Runtime::get().scalars().size()) : 0;
  return out;
}

}  // namespace

void add_functions(PyObject* module, PyMethodDef* functions, size_t count) {
  py::module_ m = py::reinterpret_borrow<py::module_>(module);
  py::str module_name("aclnn");  // what __module__ says: the package users import
  for (size_t i = 0; i < count; ++i) {
    PyObject* function = PyCFunction_NewEx(&functions[i], nullptr, module_name.ptr());
    if (function == nullptr) throw py::error_already_set();
    m.add_object(functions[i].ml_name, py::reinterpret_steal<py::object>(function));
  }
}

void init_module(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const AclnnFailure& f) {
      raise_failure(f);
    } catch (const aclnn_loader::LoaderError& e) {
      raise_backend_error(e.what());
    }
  });

  bind_tensor(m);
  bind_streams(m);
  m.def("memory_stats", &memory_stats, py::arg("device") = py::none(),
        "The caching allocator of a device (default: the current one): allocated_bytes (in use by tensors), "
        "reserved_bytes (held from the device), peak_allocated_bytes, allocations, mallocs and frees (aclrtMalloc "
        "and aclrtFree calls), cache_hits, cache_misses and cached_descriptors (aclTensors kept with cached blocks, "
        "reused by the next tensor of the same layout in the block).");
  m.def("empty_cache", [] {
    Runtime& rt = Runtime::get();
    rt.scalars().clear();
    without_gil([&] { rt.allocator(rt.device()).empty_cache(); });
  }, "Returns the cached device memory no tensor uses to the device (aclrtFree), and destroys the cached "
     "aclTensor and aclScalar descriptors no call uses.");
  bind_dtypes(m);
  m.def("to_device", &to_device, py::arg("array"),
        "A device copy of a host array (NumPy or __dlpack__), keeping its strides; an aclnn.Tensor is "
        "returned as is.");
  m.def("empty", &empty, py::arg("shape"), py::arg("dtype"),
        "An uninitialised contiguous device tensor from the caching allocator, on the current stream "
        "(no copy, no synchronisation): for out= and for results a framework fills.");
  m.def("_backend", &backend_info, "The backend's name, library directory, libraries and SoC.");
  m.def("_init", [] { Runtime::get(); }, "Initialises the runtime now (it otherwise starts on first use).");
  m.def("set_device", [](int32_t device) { Runtime::get().set_device(device); }, py::arg("device"),
        "Makes `device` the device of every later call, on every thread.");
  m.def("get_device", [] { return Runtime::get().device(); });
  m.def("sim_stats", &sim_stats,
        "The simulator's counts (aclsimGetStats): live objects, memory, streams and events, and cumulative "
        "malloc_calls, free_calls, stream_syncs, device_syncs, kernels_launched, events_recorded; kernel_path, "
        "the code path every kernel takes (ACLNN_SIM_ISA=baseline|avx2|avx512, else the CPU's widest); "
        "engine_paths, the path each engine with code per path (the elementwise engine, the softmax and reduce "
        "families) ran on, by engine, for those that have run; None on a backend without them.");
  m.def("sim_set_soc", &sim_set_soc, py::arg("name"),
        "Makes the simulator simulate another chip (a name as ACLNN_SIM_SOC takes it) for the rest of the "
        "process; ValueError for an unknown name or on a backend other than the simulator.");
  m.def("_stats", &binding_stats, "What the bindings did: copies by direction, live buffers and objects.");
  m.def("call_count", [] { return counters().calls.load(); },
        "How many calls reached their first phase so far: a call's sequence number is this count right after it "
        "(AclnnRuntimeError.call names a failing call by it).");
  m.def("_shutdown", [] {
    py::list pending;
    if (!Runtime::alive()) return pending;
    for (const AclnnFailure& f : Runtime::get().shutdown()) {
      pending.append(errors_module().attr("_from_status")(f.status, f.api, f.phase, f.message, f.call));
    }
    return pending;
  }, "Finalises the runtime (at exit, by the package); returns the device faults no synchronisation reported, "
     "as the exceptions they would have raised.");
  m.def("_resolve", [](const std::string& api, const std::string& symbol) {
    return reinterpret_cast<uintptr_t>(Runtime::get().backend().op_symbol(api, symbol));
  }, py::arg("api"), py::arg("symbol"), "Resolves an op symbol (for tests of the loader).");

  py::dict statuses;
#define ACLNN_BINDING_STATUS(name) statuses[py::int_(static_cast<long long>(name))] = #name;
  ACLNN_BINDGEN_ACL_ERRORS(ACLNN_BINDING_STATUS)
  ACLNN_BINDGEN_STATUS_CODES(ACLNN_BINDING_STATUS)
#undef ACLNN_BINDING_STATUS
  m.attr("STATUS_NAMES") = statuses;
}

}  // namespace aclnn_binding

PYBIND11_MODULE(_C, m) {
  m.doc() = "aclnn operators (generated bindings; see the aclnn package)";
  aclnn_binding::init_module(m);
  aclnn_generated::register_wrappers(m.ptr());
}
