// Host work in a stream's order: aclrtLaunchHostFunc's functions, run by the stream's worker, and
// aclrtLaunchCallback's callbacks, run by the thread subscribed to the stream (aclrtSubscribeReport)
// inside its aclrtProcessReport calls.
#include "ascendcl/stream_state.h"

#include <pthread.h>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "acl/acl.h"

namespace aclsim {

namespace {

// --- callbacks ----------------------------------------------------------------------------------

// aclrtLaunchCallback's callbacks are run by the thread subscribed to their stream
// (aclrtSubscribeReport), inside its aclrtProcessReport calls; a blocking one holds its stream until
// it has run.
struct Report {
  void (*fn)(void*) = nullptr;
  void* args = nullptr;
  std::shared_ptr<std::promise<void>> done;  // set for a blocking callback
};

struct ReportQueue {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Report> reports;
  int streams = 0;  // streams subscribed to this thread
};

struct Reporters {
  std::mutex mutex;
  std::map<uint64_t, std::shared_ptr<ReportQueue>> by_thread;
};

Reporters& ReportersState() {
  static Reporters* reporters = new Reporters;  // never destroyed: workers may run during exit
  return *reporters;
}

std::shared_ptr<ReportQueue> FindReporter(uint64_t thread) {
  Reporters& r = ReportersState();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_thread.find(thread);
  return it == r.by_thread.end() ? nullptr : it->second;
}

}  // namespace

void RunCallback(StreamState& s, Task& task) {
  auto queue = FindReporter(s.subscriber);
  if (!queue) {
    RecordFault(s, Fault{ACL_ERROR_INVALID_PARAM, task.api, "the thread subscribed to the stream unsubscribed before its callback ran", 0, 0});
    return;
  }
  Report report{task.host_fn, task.host_args, nullptr};
  std::future<void> finished;
  if (task.block) {
    report.done = std::make_shared<std::promise<void>>();
    finished = report.done->get_future();
  }
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    queue->reports.push_back(std::move(report));
  }
  queue->ready.notify_all();
  if (task.block) finished.wait();
}

}  // namespace aclsim

using aclsim::Fail;

extern "C" {

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  if (!fn) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc: fn is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtLaunchHostFunc", &s)) return status;
  aclsim::Task task;
  task.kind = aclsim::Task::Kind::kHostFunc;
  task.api = "aclrtLaunchHostFunc";
  task.host_fn = fn;
  task.host_args = args;
  return aclsim::Enqueue(s, std::move(task));
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtSubscribeReport", &s)) return status;
  auto& reporters = aclsim::ReportersState();
  std::lock_guard<std::mutex> lock(reporters.mutex);
  {
    std::lock_guard<std::mutex> stream_lock(s->mutex);
    if (s->subscriber != 0) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSubscribeReport: the stream already has a subscribed thread");
    s->subscriber = threadId;
  }
  auto& queue = reporters.by_thread[threadId];
  if (!queue) queue = std::make_shared<aclsim::ReportQueue>();
  ++queue->streams;
  return ACL_SUCCESS;
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtUnSubscribeReport", &s)) return status;
  auto& reporters = aclsim::ReportersState();
  std::lock_guard<std::mutex> lock(reporters.mutex);
  {
    std::lock_guard<std::mutex> stream_lock(s->mutex);
    if (s->subscriber != threadId) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtUnSubscribeReport: the thread is not subscribed to the stream");
    s->subscriber = 0;
  }
  auto it = reporters.by_thread.find(threadId);
  if (it != reporters.by_thread.end() && --it->second->streams == 0) reporters.by_thread.erase(it);
  return ACL_SUCCESS;
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType, aclrtStream stream) {
  if (!fn) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is a null pointer");
  if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: unknown aclrtCallbackBlockType");
  }
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtLaunchCallback", &s)) return status;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (s->subscriber == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: no thread is subscribed to the stream (aclrtSubscribeReport)");
    }
  }
  aclsim::Task task;
  task.kind = aclsim::Task::Kind::kCallback;
  task.api = "aclrtLaunchCallback";
  task.host_fn = fn;
  task.host_args = userData;
  task.block = blockType == ACL_CALLBACK_BLOCK;
  return aclsim::Enqueue(s, std::move(task));
}

aclError aclrtProcessReport(int32_t timeout) {
  if (timeout < -1 || timeout == 0) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtProcessReport: timeout must be -1 or a positive number of ms");
  auto queue = aclsim::FindReporter(static_cast<uint64_t>(pthread_self()));
  if (!queue) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtProcessReport: the calling thread is subscribed to no stream (aclrtSubscribeReport)");
  aclsim::Report report;
  {
    std::unique_lock<std::mutex> lock(queue->mutex);
    auto ready = [&] { return !queue->reports.empty(); };
    if (timeout == -1) {
      queue->ready.wait(lock, ready);
    } else if (!queue->ready.wait_for(lock, std::chrono::milliseconds(timeout), ready)) {
      return Fail(ACL_ERROR_RT_REPORT_TIMEOUT, "aclrtProcessReport: no callback arrived within " + std::to_string(timeout) + " ms");
    }
    report = std::move(queue->reports.front());
    queue->reports.pop_front();
  }
  report.fn(report.args);
  if (report.done) report.done->set_value();
  return ACL_SUCCESS;
}

}  // extern "C"
