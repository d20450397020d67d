// aclnn-bindgen: one call of an API: argument conversion, output allocation, both phases on the
// current stream.
//
// The hot path is a chain of calls on device tensors: it creates the call's CANN objects, takes
// its outputs' memory from the caching allocator, runs phase 1, queues phase 2 and returns without
// waiting. Nothing on that path builds a string (argument labels are made for messages only) or
// allocates beyond the output tensor itself.
#include <algorithm>
#include <cstring>

#include "aclnn_sim.h"
#include "binding.h"

namespace aclnn_binding {

namespace {

struct UncountedExecutor {
  void operator()(aclOpExecutor* executor) const {
    if (executor != nullptr && Runtime::alive()) Runtime::get().abi().aclDestroyAclOpExecutor(executor);
  }
};

// What the simulator does not compute in the executor's work (aclsimExecutorNotSimulated), or null:
// always null on CANN, which has no such function. Looked up once.
const char* not_simulated(const aclOpExecutor* executor) {
  static const auto query = reinterpret_cast<decltype(&aclsimExecutorNotSimulated)>(
      Runtime::get().backend().optional_symbol("aclsimExecutorNotSimulated"));
  return query ? query(executor) : nullptr;
}

}  // namespace

namespace {

// The runtime for a call of `spec`: a failure to start it (or a runtime finalised at exit) names
// the call the user made, not only the runtime function that failed.
Runtime& runtime_for(const ApiSpec& spec) {
  try {
    return Runtime::get();
  } catch (AclnnFailure& f) {
    if (f.api.empty()) {
      f.message = std::string(spec.python_name) + "(): " + f.message;
      f.api = spec.api;
    }
    throw;
  }
}

}  // namespace

Call::Call(const ApiSpec& spec, py::handle out)
    : spec_(spec), runtime_(runtime_for(spec)), stream_(runtime_.stream()) {
  runtime_.collect_released();  // foreign memory's owners whose streams have run: back to their framework
  if (out.is_none()) return;
  const size_t n = spec.outputs.size();
  if (n == 0) throw py::type_error(std::string(spec.python_name) + "() has no outputs to pass as out=");
  out_given_.assign(n, py::none());
  const bool sequence = py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out);
  if (n == 1) {
    if (spec.outputs[0].is_list || !sequence) {
      out_given_[0] = py::reinterpret_borrow<py::object>(out);
    } else if (py::len(out) == 1) {
      out_given_[0] = py::reinterpret_borrow<py::sequence>(out)[0];
    } else {
      throw py::type_error(std::string(spec.python_name) + "(): out= takes one array, got a sequence of " +
                           std::to_string(py::len(out)));
    }
    return;
  }
  if (!sequence || py::len(out) != n)
    throw py::type_error(std::string(spec.python_name) + "(): out= takes a tuple of " + std::to_string(n) +
                         " arrays (in output order)");
  auto items = py::reinterpret_borrow<py::sequence>(out);
  for (size_t i = 0; i < n; ++i) out_given_[i] = items[i];
}

Call::~Call() {
  // An unexpected exception left uploads queued that read host arrays about to be released: let
  // them finish. (A kernel fault this synchronisation meets is lost; execute() handles every
  // expected error itself and reports such a fault.)
  if (host_reads_pending_ && Runtime::alive()) runtime_.abi().aclrtSynchronizeStream(stream_.handle());
  for (size_t i = 0; i < shared_scalar_count_; ++i) ScalarCache::release(shared_scalars_[i]);
  for (size_t i = std::min(slot_count_, kInlineSlots); i-- > 0;) slot_at(i).~Slot();
}

std::string Call::Label::str() const {
  const ApiSpec& spec = call->spec_;
  std::string text = std::string(spec.python_name) + "() " + (output ? "output '" : "argument '") +
                     spec.params[param].python_name + "'";
  if (item >= 0) text += "[" + std::to_string(item) + "]";
  return text;
}

py::handle Call::given_out(size_t output) const { return output < out_given_.size() ? out_given_[output] : py::none(); }

// A tensor the op writes whose elements share memory (a broadcast, stride-0 view) would be
// written by several elements at once, in no defined order: refused, as PyTorch refuses it.
void Call::refuse_self_overlap(const Dims& shape, const Dims& strides, const Label& label) const {
  bool overlaps = false, empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    overlaps |= shape[i] > 1 && strides[i] == 0;
    empty |= shape[i] == 0;
  }
  if (overlaps && !empty)
    throw py::value_error(label.str() + ": unsupported operation: more than one element of the written-to tensor "
                          "refers to a single memory location (a stride-0 view); pass a tensor with its own memory");
}

Call::Slot* Call::new_slot() {
  // Default-initialised, not value-initialised: Slot() would first zero its inline dimension arrays.
  if (slot_count_ < kInlineSlots) return new (&inline_slots_[slot_count_++]) Slot;
  more_slots_.push_back(std::make_unique<Slot>());
  ++slot_count_;
  return more_slots_.back().get();
}

void Call::attach(int param, Slot* slot) {
  if (param >= kMaxParams) throw py::value_error(std::string(spec_.python_name) + "(): more parameters than supported");
  single_[param] = slot;
  attached_ |= uint64_t{1} << param;
}

void Call::own_descriptor(Slot* slot) {
  slot->owner = tensors_.add(slot->device->make_acl_tensor(spec_.api));
  slot->acl = tensors_.get(slot->owner);
}

py::object Call::run(Phase1Trampoline trampoline, const void* closure) {
  execute(resolve_phase1(), trampoline, closure);
  return results();
}

void* Call::resolve_phase1() {
  void* symbol = spec_.phase1.load(std::memory_order_acquire);
  if (symbol == nullptr) {
    symbol = runtime_.backend().op_symbol(spec_.api, spec_.workspace_fn);
    spec_.phase1.store(symbol, std::memory_order_release);
  }
  return symbol;
}

void Call::execute(void* phase1, Phase1Trampoline trampoline, const void* closure) {
  void* phase2_symbol = spec_.phase2.load(std::memory_order_acquire);
  if (phase2_symbol == nullptr) {
    phase2_symbol = runtime_.backend().op_symbol(spec_.api, spec_.api);
    spec_.phase2.store(phase2_symbol, std::memory_order_release);
  }
  auto phase2 = reinterpret_cast<aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream)>(phase2_symbol);
  const int64_t call = counters().calls.fetch_add(1) + 1;
  std::optional<AclnnFailure> failure;
  const void* launched = nullptr;
  // The library's work runs without the GIL, so that other Python threads proceed (CANN's phase 1
  // tiles the op and can take a while); only Python objects need it.
  auto launch = [&] {
    try {
      // Phase 1 reads only the C objects built above (no tensor data), before any upload, so that
      // a rejected call has queued nothing.
      uint64_t workspace_size = 0;
      aclOpExecutor* raw_executor = nullptr;
      aclnnStatus status = trampoline(closure, phase1, &workspace_size, &raw_executor);
      if (status != ACLNN_SUCCESS) throw AclnnFailure{status, spec_.api, "GetWorkspaceSize", runtime_.recent_error()};
      // Destroyed if phase 2 is never reached (which consumes it). Not counted in live_objects: it
      // never outlives this function, and two atomic updates per call showed in its profile.
      std::unique_ptr<aclOpExecutor, UncountedExecutor> executor(raw_executor);
      // What the simulator does not compute fails on the stream (aclsimExecutorNotSimulated): asked
      // here, it is refused at the call, with nothing queued.
      if (const char* why = not_simulated(raw_executor)) {
        throw AclnnFailure{ACLNN_ERR_INNER_FIND_KERNEL_ERROR, spec_.api, "execute", why};
      }
      // Host arrays go up on the call's stream, after whatever the stream runs before this call
      // (the blocks they land in may have been another call's a moment ago). The arrays stay
      // alive in the slots until the call has synchronised.
      for (size_t i = 0; i < slot_count_; ++i) {
        Slot& slot = slot_at(i);
        if (!slot.upload) continue;
        // An out= array that covers its span exactly is overwritten whole: nothing to upload. (A
        // strided one is uploaded, so that the elements between its own keep their values.)
        if (slot.overwrite && slot.host.dense() && !slot.host.writeback) continue;
        host_reads_pending_ = true;
        copy_async(slot.device->storage->data(), slot.host.data, slot.host.bytes(slot.device->storage_elements),
                   ACL_MEMCPY_HOST_TO_DEVICE,
                   stream_, spec_.api);
      }
      std::shared_ptr<DeviceBuffer> workspace;
      // The workspace goes back to the cache when this call returns: the next user on this
      // stream runs after this call's kernel, as the stream orders them.
      if (workspace_size > 0) workspace = DeviceBuffer::allocate(workspace_size, stream_, spec_.api);
      // Phase 2 consumes the executor (CANN frees a non-repeatable executor after running it).
      status = phase2(workspace ? workspace->data() : nullptr, workspace_size, executor.release(), stream_.handle());
      if (status != ACLNN_SUCCESS) throw AclnnFailure{status, spec_.api, "execute", runtime_.recent_error()};
      launched = raw_executor;
    } catch (AclnnFailure& f) {
      failure = std::move(f);
    }
  };
  // With no other Python thread, releasing the GIL (a mutex and a condition variable each way, a
  // tenth of a chained call) would let nobody run.
  if (other_python_threads()) without_gil(launch);
  else launch();
  if (failure) {
    // Queued uploads read host arrays this call is about to let go: wait for them. A fault of an
    // earlier call that this synchronisation finds is raised instead (it happened first).
    if (host_reads_pending_) synchronize_stream();
    host_reads_pending_ = false;
    throw *failure;
  }
  stream_.note_launch(call, spec_.api, launched);
  // The Tensors the kernel writes remember this stream (a host array's copy is read back here).
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (slot.written && !slot.made) slot.device->storage->written_on(stream_);
  }
  if (uploads_ || downloads_ || data_dependent_ || runtime_.launch_blocking()) synchronize_and_download();
  if (data_dependent_) shrink_to_written();
}

void Call::shrink_to_written() {
  const auto get_view_shape = runtime_.abi().aclGetViewShape;
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (!slot.data_dependent) continue;
    if (get_view_shape == nullptr)
      throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclGetViewShape",
                         "the backend exports no aclGetViewShape, which reads back the extent of a data-dependent output"};
    int64_t* dims = nullptr;
    uint64_t rank = 0;
    const aclnnStatus status = get_view_shape(slot.acl, &dims, &rank);
    if (status != ACLNN_SUCCESS) throw AclnnFailure{status, spec_.api, "aclGetViewShape", runtime_.recent_error()};
    Dims shape(dims, dims + rank);
    delete[] dims;  // CANN's contract: the caller releases the array with delete[]
    // The kernel wrote the elements contiguously from the first: the result is their view (an
    // out= array of the result's own shape is returned as given).
    if (slot.made) {
      py::array whole = py::reinterpret_borrow<py::array>(slot.result);
      if (Dims(whole.shape(), whole.shape() + whole.ndim()) == shape) continue;
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      py::object flat = whole.attr("reshape")(-1);
      py::tuple dims_tuple(shape.size());
      for (size_t d = 0; d < shape.size(); ++d) dims_tuple[d] = py::int_(shape[d]);
      slot.result = flat[py::slice(0, static_cast<py::ssize_t>(n), 1)].attr("reshape")(dims_tuple);
    } else {
      DeviceTensor& t = device_tensor_of(slot.result);
      t.strides = contiguous_strides(shape);
      t.shape = shape;
    }
  }
}

// One synchronisation: host arrays were read by the stream (uploads) or are written from it
// (downloads), and ACLNN_LAUNCH_BLOCKING=1 wants every call's fault reported by that call.
void Call::synchronize_and_download() {
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (!slot.download) continue;
    copy_async(slot.host.data, slot.device->storage->data(), slot.host.bytes(slot.device->storage_elements),
               ACL_MEMCPY_DEVICE_TO_HOST,
               stream_, spec_.api);
  }
  synchronize_stream();
  host_reads_pending_ = false;
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (!slot.download || !slot.host.writeback) continue;
    py::object values = slot.host.keep;
    if (slot.host.packed)
      values = unpack_int4(static_cast<const uint8_t*>(slot.host.keep.cast<py::array>().data()), slot.host.shape);
    py::module_::import("numpy").attr("copyto")(slot.host.writeback, values);
  }
}

void Call::synchronize_stream() {
  try {
    stream_.synchronize(spec_.python_name);
  } catch (py::error_already_set&) {  // KeyboardInterrupt: the stream still reads and writes them
    for (size_t i = 0; i < slot_count_; ++i) {
      Slot& slot = slot_at(i);
      if (!slot.upload && !slot.download) continue;
      stream_.hold_until_done(slot.host.keep);
      stream_.hold_until_done(slot.host.writeback);
    }
    host_reads_pending_ = false;  // the stream holds them: ~Call need not wait
    throw;
  }
}

py::object Call::results() {
  auto result_of = [&](int param) -> py::object {
    if (is_list_ >> param & 1) {
      py::list items;
      for (const auto& entry : lists_) {
        if (entry.first != param) continue;
        for (Slot* s : entry.second) items.append(s ? s->result : py::none());
      }
      return std::move(items);
    }
    Slot* slot = param < kMaxParams && (attached_ >> param & 1) ? single_[param] : nullptr;
    return slot ? slot->result : py::none();
  };
  if (spec_.returns.empty()) return py::none();
  if (spec_.returns.size() == 1) return result_of(spec_.returns[0]);
  py::tuple tuple(spec_.returns.size());
  for (size_t i = 0; i < spec_.returns.size(); ++i) tuple[i] = result_of(spec_.returns[i]);
  return std::move(tuple);
}

// CallView: what a generated wrapper calls, forwarded to its Call (wrapper.h says why).
aclTensor* CallView::tensor(int param, PyObject* obj) { return call_.tensor(param, obj); }
aclTensor* CallView::inout_tensor(int param, PyObject* obj) { return call_.inout_tensor(param, obj); }
aclTensorList* CallView::tensor_list(int param, PyObject* obj) { return call_.tensor_list(param, obj); }
aclTensorList* CallView::inout_tensor_list(int param, PyObject* obj) { return call_.inout_tensor_list(param, obj); }
aclScalar* CallView::scalar(int param, PyObject* obj) { return call_.scalar(param, obj); }
aclScalarList* CallView::scalar_list(int param, PyObject* obj) { return call_.scalar_list(param, obj); }
aclIntArray* CallView::int_array(int param, PyObject* obj) { return call_.int_array(param, obj); }
aclFloatArray* CallView::float_array(int param, PyObject* obj) { return call_.float_array(param, obj); }
aclBoolArray* CallView::bool_array(int param, PyObject* obj) { return call_.bool_array(param, obj); }
bool CallView::boolean(int param, PyObject* obj) { return call_.boolean(param, obj); }
long double CallView::integer_in_range(int param, PyObject* obj, long double lo, long double hi) {
  return call_.integer_in_range(param, obj, lo, hi);
}
double CallView::floating_value(int param, PyObject* obj, bool single) { return call_.floating_value(param, obj, single); }
char* CallView::string(int param, PyObject* obj) { return call_.string(param, obj); }
aclDataType CallView::dtype(int param, PyObject* obj) { return call_.dtype(param, obj); }
aclTensor* CallView::output(int param, const RuleArgs& rule_args) { return call_.output(param, rule_args); }
aclTensor* CallView::given_output(int param) { return call_.given_output(param); }
aclTensorList* CallView::output_list(int param) { return call_.output_list(param); }
PyObject* CallView::run_with(Phase1Trampoline trampoline, const void* closure) {
  return call_.run(trampoline, closure).release().ptr();
}

}  // namespace aclnn_binding
