#include "cpu_placement.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <string>

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ductile::studio {
namespace {

#ifdef __linux__
// The mask of `cores` (every allowed core when empty).
cpu_set_t MaskOf(const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores.empty() ? AllowedCores() : cores) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  return set;
}

std::vector<int> CoresOf(const cpu_set_t& set) {
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cores.push_back(c);
  }
  return cores;
}
#endif

// A thread at normal priority that starts threads for others (StartNormalPriorityThread): made before the first
// thread's priority is lowered, and alive until the process ends.
class Launcher {
 public:
  Launcher() : thread_([this] { Run(); }) { thread_.detach(); }
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  std::thread Start(std::function<void()> body) {
    std::packaged_task<std::thread()> task([body = std::move(body)]() mutable { return std::thread(std::move(body)); });
    std::future<std::thread> started = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
    return started.get();  // rethrows std::system_error when the thread could not be made
  }

 private:
  void Run() {
    PinCallingThread({});  // every allowed core, whatever its creator's affinity
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return !tasks_.empty(); });
      std::packaged_task<std::thread()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<std::thread()>> tasks_;
  std::thread thread_;  // last: started once the members it uses exist; detached, it lives as long as the process
};

std::mutex launcher_mutex;
Launcher* launcher = nullptr;  // made by LowerCallingThreadPriority, never destroyed (threads may start at exit)

}  // namespace

bool LowerCallingThreadPriority(int nice) {
  {
    std::lock_guard<std::mutex> lock(launcher_mutex);
    if (!launcher) launcher = new Launcher;
  }
#ifdef __linux__
  return setpriority(PRIO_PROCESS, static_cast<id_t>(CurrentThreadId()), std::clamp(nice, 0, 19)) == 0;
#else
  (void)nice;
  return false;
#endif
}

std::thread StartNormalPriorityThread(std::function<void()> body) {
  Launcher* l = nullptr;
  {
    std::lock_guard<std::mutex> lock(launcher_mutex);
    l = launcher;
  }
  if (l) return l->Start(std::move(body));
  return std::thread([body = std::move(body)] {
    PinCallingThread({});
    body();
  });
}

std::vector<int> AllowedCores() {
#ifdef __linux__
  // The first caller's affinity, before any thread of the studio's was pinned (the UI thread asks first, when the
  // viewport's device is known); later, a pinned thread's own mask would be narrower than the process's.
  static const std::vector<int> cores = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return std::vector<int>{};
    return CoresOf(set);
  }();
  return cores;
#else
  return {};
#endif
}

CorePlan PlanCores(const std::vector<int>& allowed) {
  CorePlan plan;
  if (allowed.size() < 2) return plan;
  plan.simulation_core = allowed.front();
  plan.viewport_cores = {allowed.back()};
  return plan;
}

bool PinCallingThread(const std::vector<int>& cores) {
#ifdef __linux__
  const cpu_set_t set = MaskOf(cores);
  return CPU_COUNT(&set) > 0 && sched_setaffinity(CurrentThreadId(), sizeof(set), &set) == 0;
#else
  (void)cores;
  return false;
#endif
}

int CurrentThreadId() {
#ifdef __linux__
  return static_cast<int>(syscall(SYS_gettid));
#else
  return 0;
#endif
}

std::vector<int> ThreadsNamed(std::string_view prefix) {
  std::vector<int> tids;
#ifdef __linux__
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::string name;
    std::getline(std::ifstream(entry.path() / "comm"), name);
    if (name.starts_with(prefix)) {
      try {
        tids.push_back(std::stoi(entry.path().filename().string()));
      } catch (const std::exception&) {
      }
    }
  }
  std::sort(tids.begin(), tids.end());
#else
  (void)prefix;
#endif
  return tids;
}

int PlaceThreads(const std::vector<int>& tids, const std::vector<int>& cores, int nice) {
  int placed = 0;
#ifdef __linux__
  const cpu_set_t set = MaskOf(cores);
  for (int tid : tids) {
    const bool pinned = CPU_COUNT(&set) > 0 && sched_setaffinity(tid, sizeof(set), &set) == 0;
    // On Linux the nice value belongs to the thread: PRIO_PROCESS with a thread id sets that thread's alone.
    const bool niced = setpriority(PRIO_PROCESS, static_cast<id_t>(tid), std::clamp(nice, 0, 19)) == 0;
    if (pinned && niced) ++placed;
  }
#else
  (void)tids;
  (void)cores;
  (void)nice;
#endif
  return placed;
}

int NiceOfThread(int tid) {
#ifdef __linux__
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
  return errno == 0 ? nice : 0;
#else
  (void)tid;
  return 0;
#endif
}

std::vector<int> CoresOfThread(int tid) {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof(set), &set) != 0) return {};
  return CoresOf(set);
#else
  (void)tid;
  return {};
#endif
}

}  // namespace ductile::studio
