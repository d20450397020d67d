// Graph capture (aclmdlRI*): a stream's launches recorded into a model between aclmdlRICaptureBegin
// and End instead of being run, the streams that join the capture by waiting for an event recorded
// into it, the calls a capture forbids, task groups and their updates, and the model's replay.
#include "ascendcl/stream_state.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"

namespace aclsim {

std::shared_ptr<ModelState> CaptureOf(StreamState& s) {
  if (!s.capturing.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.capture;
}

namespace {

// Notes which of a copy's or a fill's ranges are device memory now: a replay checks they still are.
void NoteDeviceRanges(Task& task) {
  if (task.kind != Task::Kind::kCopy && task.kind != Task::Kind::kFill) return;
  DeviceRange range;
  task.dst_on_device = FindDeviceAllocation(task.dst, &range);
  task.src_on_device = task.kind == Task::Kind::kCopy && FindDeviceAllocation(task.src, &range);
}

const char* TaskTypeName(Task::Kind kind) {
  switch (kind) {
    case Task::Kind::kKernel: return "KERNEL";
    case Task::Kind::kCopy: return "MEMCPY";
    case Task::Kind::kFill: return "MEMSET";
    case Task::Kind::kRecord: return "EVENT_RECORD";
    case Task::Kind::kWait: return "EVENT_WAIT";
    case Task::Kind::kReset: return "EVENT_RESET";
    case Task::Kind::kHostFunc: return "HOST_FUNC";
    case Task::Kind::kCallback: return "CALLBACK";
    case Task::Kind::kUpdate: return "TASK_UPDATE";
    case Task::Kind::kValueWrite: return "VALUE_WRITE";
    case Task::Kind::kValueWait: return "VALUE_WAIT";
  }
  return "UNKNOWN";
}

}  // namespace

bool UpdateOpen(StreamState& s) {
  if (!s.updating.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.update != nullptr;
}

aclError RefuseInUpdate(Task::Kind kind, const char* api) {
  return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP,
              std::string(api) + ": the stream is updating a task group (aclmdlRICaptureTaskUpdateBegin), which re-records "
                                 "kernels, copies and fills only, not a " + TaskTypeName(kind) + " task");
}

bool AddToUpdate(StreamState& s, Task& task, aclError* status) {
  NoteDeviceRanges(task);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.update) return false;
  if (!Updatable(task.kind)) {
    *status = RefuseInUpdate(task.kind, task.api);
    return true;
  }
  s.update->members.push_back(std::move(task));
  *status = ACL_SUCCESS;
  return true;
}

aclError AddToCapture(StreamState& s, ModelState& model, Task&& task) {
  std::shared_ptr<TaskGroupState> group;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    group = s.open_group;
  }
  std::lock_guard<std::mutex> lock(model.mutex);
  if (!model.invalidated_by.empty()) {
    return Fail(ACL_ERROR_RT_STREAM_UNJOINED, std::string(task.api) + ": the stream's capture was invalidated by " +
                                                  model.invalidated_by + " (end it with aclmdlRICaptureEnd)");
  }
  NoteDeviceRanges(task);
  if (group && Updatable(task.kind)) {
    std::lock_guard<std::mutex> members(group->mutex);
    task.member = group->members.size();
    group->members.push_back(task);
    task.group = std::move(group);
  }
  model.tasks.push_back(std::move(task));
  return ACL_SUCCESS;
}

void Invalidate(ModelState& model, const char* api) {
  std::lock_guard<std::mutex> lock(model.mutex);
  if (model.invalidated_by.empty()) model.invalidated_by = api;
}

aclError RefuseWhileCaptured(StreamState& s, const char* api) {
  auto model = CaptureOf(s);
  if (!model) return ACL_SUCCESS;
  Invalidate(*model, api);
  return Fail(ACL_ERROR_RT_STREAM_CAPTURED,
              std::string(api) + ": the stream is being captured (aclmdlRICaptureBegin): its work runs when the model "
                                 "is executed, so it cannot be waited for; the capture is invalidated");
}

namespace {

// The calling thread's capture interaction mode (aclmdlRICaptureThreadExchangeMode).
thread_local aclmdlRICaptureMode t_capture_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

}  // namespace

aclError RefuseDuringCapture(const std::vector<std::shared_ptr<StreamState>>& streams, const char* api) {
  if (t_capture_mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED) return ACL_SUCCESS;
  for (const auto& s : streams) {
    auto model = CaptureOf(*s);
    if (!model) continue;
    bool unsafe;
    {
      std::lock_guard<std::mutex> lock(model->mutex);
      unsafe = model->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
               (model->mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL && model->thread == std::this_thread::get_id());
    }
    if (!unsafe) continue;
    Invalidate(*model, api);
    return Fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                std::string(api) + ": a stream of the device is being captured (aclmdlRICaptureBegin) in a mode that forbids "
                                   "synchronising the device (set ACL_MODEL_RI_CAPTURE_MODE_RELAXED with "
                                   "aclmdlRICaptureThreadExchangeMode to allow it); the capture is invalidated");
  }
  return ACL_SUCCESS;
}

namespace {

// What invalidates a capture that ends with a task group open on one of its streams.
constexpr const char* kGroupLeftOpen = "a task group left open (aclmdlRICaptureTaskGrpBegin without aclmdlRICaptureTaskGrpEnd)";

// The capture `s` takes part in, taken from it with the task group open on it (null: none), under its lock.
struct LeftCapture {
  std::shared_ptr<ModelState> model;
  bool group_was_open = false;
};
LeftCapture LeaveCapture(StreamState& s, const std::shared_ptr<ModelState>& only = nullptr) {
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.capture || (only && s.capture != only)) return {};
  LeftCapture left{std::move(s.capture), s.open_group != nullptr};
  s.open_group.reset();
  s.capturing.store(false, std::memory_order_release);
  return left;
}

// Releases the aclrtTaskGrp handles of a model that is gone (destroyed, or its capture invalidated).
void ReleaseGroups(const std::vector<uintptr_t>& groups) {
  for (uintptr_t group : groups) State().groups.Take(reinterpret_cast<void*>(group));
}

// Ends `model`'s capture once its origin stream has left it (aclmdlRICaptureEnd, or the origin
// destroyed): the streams that joined it leave it too, and a task group still open on any of them
// is interrupted, which invalidates the capture. Without an invalidation the model is made (it may
// be executed); otherwise it is released with its task groups, nothing left for aclmdlRIDestroy, and
// what invalidated it is returned.
std::string EndCapture(const std::shared_ptr<ModelState>& model, bool group_was_open) {
  std::vector<std::weak_ptr<StreamState>> joined;
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    joined.swap(model->joined);
  }
  for (const auto& weak : joined) {
    if (auto other = weak.lock()) group_was_open |= LeaveCapture(*other, model).group_was_open;
  }
  std::vector<uintptr_t> groups;
  std::string invalidated_by;
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    if (group_was_open && model->invalidated_by.empty()) model->invalidated_by = kGroupLeftOpen;
    invalidated_by = model->invalidated_by;
    model->ended = invalidated_by.empty();
    if (!model->ended) groups.swap(model->groups);
  }
  if (!invalidated_by.empty()) {
    State().models.Take(reinterpret_cast<void*>(model->handle));
    ReleaseGroups(groups);
  }
  return invalidated_by;
}

}  // namespace

void AbandonRecording(StreamState& s, const char* api) {
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.destroyed = true;
    s.update.reset();
    s.updating.store(false, std::memory_order_release);
  }
  LeftCapture left = LeaveCapture(s);
  if (!left.model) return;
  Invalidate(*left.model, api);
  if (left.model->stream == s.handle) EndCapture(left.model, left.group_was_open);
}

namespace {

// A captured copy or fill whose device memory was freed since the capture would write or read memory
// the simulator may have unmapped: refused before anything of the replay is queued.
aclError CheckReplayedRanges(const std::vector<Task>& tasks, const char* api) {
  auto live = [](const void* p, size_t count) {
    DeviceRange range;
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    return FindDeviceAllocation(p, &range) && count <= range.base + range.size - address;
  };
  for (const Task& replayed : tasks) {
    Task current;  // a task group's member is checked with its current arguments
    if (replayed.group) current = replayed.group->Current(replayed.member);
    const Task& task = replayed.group ? current : replayed;
    if (task.kind != Task::Kind::kCopy && task.kind != Task::Kind::kFill) continue;
    if ((task.dst_on_device && !live(task.dst, task.count)) || (task.src_on_device && !live(task.src, task.count))) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the model's " + task.api +
                                               " uses device memory that was freed since it was captured");
    }
  }
  return ACL_SUCCESS;
}

// Queues copies of `model`'s tasks on `s`, in capture order: a record is numbered as a new record
// of its event, a wait waits for its event's latest record at this point (within the model, the
// record replayed before it). Onto a stream that is itself being captured, they go into its model.
aclError ReplayModel(ModelState& model, const std::shared_ptr<StreamState>& s, const char* api) {
  std::vector<Task> tasks;
  {
    std::lock_guard<std::mutex> lock(model.mutex);
    tasks = model.tasks;
  }
  if (aclError status = CheckReplayedRanges(tasks, api)) return status;
  if (UpdateOpen(*s)) {
    return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP, std::string(api) + ": the stream is updating a task group "
                                                            "(aclmdlRICaptureTaskUpdateBegin): a model's replay cannot re-record it");
  }
  const std::shared_ptr<ModelState> capture = CaptureOf(*s);
  const bool captured = capture != nullptr;
  for (Task& task : tasks) {
    if (task.kind == Task::Kind::kRecord || task.kind == Task::Kind::kWait) {
      std::lock_guard<std::mutex> lock(task.event->mutex);
      if (task.kind == Task::Kind::kRecord) {
        task.event->record_captured = captured;
        task.event->captured_into = capture;
        task.version = captured ? 0 : ++task.event->recorded;
        task.event->reset_queued = false;  // a wait queued after it waits for this record
      } else {
        task.version = task.event->recorded;
      }
    }
    if (!captured) {
      if (task.kind == Task::Kind::kRecord) State().events_recorded.fetch_add(1, std::memory_order_relaxed);
      if (task.kind == Task::Kind::kKernel) State().kernels_launched.fetch_add(1, std::memory_order_relaxed);
      if (task.kind == Task::Kind::kWait && task.version == 0) continue;
    }
    if (aclError status = Enqueue(s, std::move(task))) return status;
  }
  return ACL_SUCCESS;
}

// The live model `modelRI` names, for `api`.
aclError LiveModel(aclmdlRI modelRI, const char* api, std::shared_ptr<ModelState>* out) {
  *out = modelRI ? State().models.Find(modelRI) : nullptr;
  return *out ? ACL_SUCCESS : Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": modelRI is not a live model");
}

// The model `modelRI` names, ended (captured and returned by aclmdlRICaptureEnd), for `api`.
aclError EndedModel(aclmdlRI modelRI, const char* api, std::shared_ptr<ModelState>* out) {
  if (aclError status = LiveModel(modelRI, api, out)) return status;
  std::lock_guard<std::mutex> lock((*out)->mutex);
  if (!(*out)->ended) {
    return Fail(ACL_ERROR_RT_MODEL_CAPTURED, std::string(api) + ": the model is still being captured (end it with aclmdlRICaptureEnd)");
  }
  return ACL_SUCCESS;
}

// The model as JSON: its id, its stream and its tasks (type, the API that launched each).
std::string ModelJson(ModelState& model) {
  std::lock_guard<std::mutex> lock(model.mutex);
  std::string json = "{\"modelRI\": " + std::to_string(model.id) + ", \"stream\": " + std::to_string(model.stream & 0x7fffffff) +
                     ", \"tasks\": [";
  for (size_t i = 0; i < model.tasks.size(); ++i) {
    const Task& task = model.tasks[i];
    json += (i ? ", " : "") + std::string("{\"seq\": ") + std::to_string(i) + ", \"type\": \"" + TaskTypeName(task.kind) +
            "\", \"api\": \"" + task.api + "\"}";
  }
  return json + "]}";
}

}  // namespace

}  // namespace aclsim

using aclsim::Fail;

extern "C" {

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  constexpr const char* api = "aclmdlRICaptureBegin";
  if (mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclmdlRICaptureMode " + std::to_string(static_cast<int>(mode)));
  }
  // As CUDA's legacy default stream, a device's default stream is shared by every caller: its
  // work cannot be captured.
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the default stream cannot be captured (capture a stream made by aclrtCreateStream)");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  auto model = std::make_shared<aclsim::ModelState>();
  model->stream = s->handle;
  model->mode = mode;
  model->thread = std::this_thread::get_id();
  model->id = aclsim::State().models_made.fetch_add(1) + 1;
  std::lock_guard<std::mutex> lock(s->mutex);
  if (s->destroyed) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is not a live stream");
  if (s->capture) return Fail(ACL_ERROR_RT_STREAM_CAPTURED, std::string(api) + ": the stream is already being captured");
  if (s->update) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is updating a task group "
                                                                       "(end the update with aclmdlRICaptureTaskUpdateEnd first)");
  }
  model->handle = aclsim::State().models.Add(model);
  s->capture = std::move(model);
  s->capturing.store(true, std::memory_order_release);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI) {
  constexpr const char* api = "aclmdlRICaptureEnd";
  if (!modelRI) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": modelRI is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (!s->capture) return Fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, std::string(api) + ": the stream is not being captured");
    if (s->capture->stream != s->handle) {
      // As CUDA's cudaErrorStreamCaptureUnmatched: a stream that joined a capture does not end it.
      return Fail(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, std::string(api) + ": the stream joined a capture begun on another "
                                                                            "stream (end it there)");
    }
    if (s->capture->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && s->capture->thread != std::this_thread::get_id()) {
      return Fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                  std::string(api) + ": the capture was begun by another thread (only a relaxed-mode capture may end elsewhere)");
    }
  }
  aclsim::LeftCapture left = aclsim::LeaveCapture(*s);
  if (!left.model) return Fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, std::string(api) + ": the stream is not being captured");
  const std::string invalidated_by = aclsim::EndCapture(left.model, left.group_was_open);
  if (!invalidated_by.empty()) {
    *modelRI = nullptr;
    // A task group left open interrupts the capture (ACL_ERROR_STREAM_TASK_GROUP_INTR); any other
    // invalidation leaves the streams unjoined from a model.
    return Fail(invalidated_by == aclsim::kGroupLeftOpen ? ACL_ERROR_STREAM_TASK_GROUP_INTR : ACL_ERROR_RT_STREAM_UNJOINED,
                std::string(api) + ": the capture was invalidated by " + invalidated_by + ": no model was made");
  }
  *modelRI = reinterpret_cast<aclmdlRI>(left.model->handle);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status, aclmdlRI* modelRI) {
  if (!status) return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureGetInfo: status is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError code = aclsim::Resolve(stream, "aclmdlRICaptureGetInfo", &s)) return code;
  auto model = aclsim::CaptureOf(*s);
  *status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  if (model) {
    std::lock_guard<std::mutex> lock(model->mutex);
    *status = model->invalidated_by.empty() ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE : ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
  }
  if (modelRI) *modelRI = model ? reinterpret_cast<aclmdlRI>(model->handle) : nullptr;
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode* mode) {
  if (!mode) return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureThreadExchangeMode: mode is a null pointer");
  if (*mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || *mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureThreadExchangeMode: unknown aclmdlRICaptureMode");
  }
  const aclmdlRICaptureMode previous = aclsim::t_capture_mode;  // the documented exchange, per thread
  aclsim::t_capture_mode = *mode;
  *mode = previous;
  return ACL_SUCCESS;
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::EndedModel(modelRI, "aclmdlRIExecuteAsync", &model)) return status;
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclmdlRIExecuteAsync", &s)) return status;
  return aclsim::ReplayModel(*model, s, "aclmdlRIExecuteAsync");
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
  constexpr const char* api = "aclmdlRIExecute";
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::EndedModel(modelRI, api, &model)) return status;
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(reinterpret_cast<aclrtStream>(model->stream), api, &s)) {
    return Fail(status, std::string(api) + ": the stream the model was captured from was destroyed (use aclmdlRIExecuteAsync on a stream)");
  }
  if (aclError status = aclsim::ReplayModel(*model, s, api)) return status;
  return aclsim::SynchronizeWithin(s, timeout, api);
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  constexpr const char* api = "aclmdlRIDestroy";
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::EndedModel(modelRI, api, &model)) return status;
  // Replays already queued hold copies of its tasks (and its task groups): destroying it now is safe.
  aclsim::State().models.Take(modelRI);
  std::vector<uintptr_t> groups;
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    groups.swap(model->groups);
  }
  aclsim::ReleaseGroups(groups);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream) {
  constexpr const char* api = "aclmdlRICaptureTaskGrpBegin";
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::lock_guard<std::mutex> lock(s->mutex);
  if (!s->capture) return Fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, std::string(api) + ": the stream is not being captured");
  if (s->open_group) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": a task group is already open on the stream "
                                                                       "(end it with aclmdlRICaptureTaskGrpEnd; groups do not nest)");
  }
  s->open_group = std::make_shared<aclsim::TaskGroupState>();
  s->open_group->model = s->capture;
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp* handle) {
  constexpr const char* api = "aclmdlRICaptureTaskGrpEnd";
  if (!handle) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": handle is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::shared_ptr<aclsim::TaskGroupState> group;
  std::shared_ptr<aclsim::ModelState> model;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (!s->open_group) {
      return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": no task group is open on the stream "
                                                                         "(begin one with aclmdlRICaptureTaskGrpBegin)");
    }
    group = std::move(s->open_group);
    model = s->capture;  // an open group's stream is being captured: the capture's end closes its groups
  }
  *handle = nullptr;
  std::lock_guard<std::mutex> lock(model->mutex);
  if (!model->invalidated_by.empty()) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_INTR, std::string(api) + ": the capture was invalidated by " + model->invalidated_by +
                                                      " while the task group was open");
  }
  const uintptr_t made = aclsim::State().groups.Add(group);
  model->groups.push_back(made);
  *handle = reinterpret_cast<aclrtTaskGrp>(made);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle) {
  constexpr const char* api = "aclmdlRICaptureTaskUpdateBegin";
  // As for a capture: the default stream is shared by every caller, whose launches it would divert.
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the default stream cannot update a task group (use a stream made by aclrtCreateStream)");
  auto group = handle ? aclsim::State().groups.Find(handle) : nullptr;
  if (!group) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": handle is not a live task group (made by aclmdlRICaptureTaskGrpEnd, "
                                                            "it lives as long as its model)");
  }
  auto model = group->model.lock();
  if (!model) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the task group's model was destroyed");
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    if (!model->ended) {
      return Fail(ACL_ERROR_RT_MODEL_CAPTURED, std::string(api) + ": the task group's model is still being captured (end it with aclmdlRICaptureEnd)");
    }
  }
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::lock_guard<std::mutex> lock(s->mutex);
  if (s->destroyed) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is not a live stream");
  if (s->capture) {
    return Fail(ACL_ERROR_RT_STREAM_CAPTURED, std::string(api) + ": the stream is being captured: an update runs on a stream that is not");
  }
  if (s->update) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is already updating a task group "
                                                                       "(end that update with aclmdlRICaptureTaskUpdateEnd)");
  }
  s->update = std::make_shared<aclsim::TaskUpdate>();
  s->update->group = std::move(group);
  s->updating.store(true, std::memory_order_release);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream) {
  constexpr const char* api = "aclmdlRICaptureTaskUpdateEnd";
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::shared_ptr<aclsim::TaskUpdate> update;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    update = std::move(s->update);
    s->updating.store(false, std::memory_order_release);
  }
  if (!update) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is not updating a task group "
                                                                       "(begin with aclmdlRICaptureTaskUpdateBegin)");
  }
  // The update re-records the group's tasks with new arguments: the same tasks, in the same order
  // (a device patches each captured task in place; it cannot add, drop or change one's kind).
  std::string mismatch;
  {
    std::lock_guard<std::mutex> lock(update->group->mutex);
    const std::vector<aclsim::Task>& captured = update->group->members;
    const std::vector<aclsim::Task>& updated = update->members;
    if (updated.size() != captured.size()) {
      mismatch = "it launched " + std::to_string(updated.size()) + " kernels, copies and fills, the task group holds " +
                 std::to_string(captured.size());
    }
    for (size_t i = 0; mismatch.empty() && i < updated.size(); ++i) {
      if (updated[i].kind != captured[i].kind || (updated[i].kind == aclsim::Task::Kind::kKernel &&
                                                  std::strcmp(updated[i].api, captured[i].api) != 0)) {
        mismatch = "its task " + std::to_string(i) + " is a " + aclsim::TaskTypeName(updated[i].kind) + " of " + updated[i].api +
                   ", the task group's is a " + aclsim::TaskTypeName(captured[i].kind) + " of " + captured[i].api;
      }
    }
  }
  if (!mismatch.empty()) {
    return Fail(ACL_ERROR_RT_MODEL_UPDATE_FAILED, std::string(api) + ": the update does not match the task group (" + mismatch +
                                                      "): the task group keeps its arguments");
  }
  // Queued in the stream's order: the members change when the stream reaches it, so that work the
  // update stream was given before (the new arguments' inputs) is done first, and a replay that
  // waits for an event recorded after it runs them with the new arguments.
  aclsim::Task task;
  task.kind = aclsim::Task::Kind::kUpdate;
  task.api = api;
  task.update = std::move(update);
  return aclsim::Enqueue(s, std::move(task));
}

aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t* modelRIId) {
  if (!modelRIId) return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRIGetId: modelRIId is a null pointer");
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::LiveModel(modelRI, "aclmdlRIGetId", &model)) return status;
  *modelRIId = model->id;
  return ACL_SUCCESS;
}

aclError aclmdlRIDebugPrint(aclmdlRI modelRI) {
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::LiveModel(modelRI, "aclmdlRIDebugPrint", &model)) return status;
  std::fprintf(stderr, "[aclnn-sim] aclmdlRI %s\n", aclsim::ModelJson(*model).c_str());
  return ACL_SUCCESS;
}

aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char* path, uint32_t flags) {
  constexpr const char* api = "aclmdlRIDebugJsonPrint";
  (void)flags;  // print modes of the device's task descriptions, which the simulator does not have
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::LiveModel(modelRI, api, &model)) return status;
  if (!path) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": path is a null pointer");
  std::ofstream out(path);
  out << aclsim::ModelJson(*model) << "\n";
  if (!out) return Fail(ACL_ERROR_INVALID_FILE, std::string(api) + ": cannot write " + path);
  return ACL_SUCCESS;
}

}  // extern "C"
