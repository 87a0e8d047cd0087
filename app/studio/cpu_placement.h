// Where the studio's threads run when the viewport draws on a CPU Vulkan device (lavapipe), so that drawing stays off
// the simulation's critical path (docs/studio.md, "Sharing the cores").
//
// The simulation thread runs every serial part of a step and one share of its parallel loops; its TBB worker threads
// run the other shares, woken for each loop (dozens per step). When the viewport's threads (the UI thread and
// lavapipe's rasteriser) share a core with them at the same priority, the scheduler lets a woken worker wait until the
// drawing thread's slice ends: the loops then run on the simulation thread alone, and the step slows more than the
// CPU time drawing took (bench/results/*-studio.md: about 65% of headless speed at 30 frames/s with the 6k dough
// scene on 2 cores). So, with two or more cores, the simulation thread is pinned to the first and the viewport's
// threads to the last, and the rasteriser runs at the lowest priority: a worker waking on the last core takes it at
// once, and the rasteriser draws in the time the workers leave. Linux only; elsewhere the functions do nothing and
// report so.
#pragma once
#include <functional>
#include <string_view>
#include <thread>
#include <vector>

namespace ductile::studio {

/// The cores for the simulation thread and for the viewport's threads.
struct CorePlan {
  int simulation_core = -1;         ///< Core the simulation thread is pinned to; −1: no placement.
  std::vector<int> viewport_cores;  ///< Cores the UI thread and the rasteriser threads are confined to.
};

/// The cores this process may run on (its affinity mask when first asked, before any thread is pinned), in
/// increasing order; empty when unknown.
std::vector<int> AllowedCores();

/// With two or more `allowed` cores: the simulation thread on the first, the viewport's threads on the last. With
/// fewer: no placement (simulation_core −1).
CorePlan PlanCores(const std::vector<int>& allowed);

/// Pins the calling thread to `cores` (to every allowed core when empty). False when the system refuses.
bool PinCallingThread(const std::vector<int>& cores);

/// Pins threads `tids` of this process to `cores` and sets their nice value to `nice` (0 to 19; a thread can always
/// be given a lower priority). Returns how many threads were placed.
int PlaceThreads(const std::vector<int>& tids, const std::vector<int>& cores, int nice);

/// Sets the calling thread's nice value to `nice` (0 to 19). First it starts the launcher that
/// StartNormalPriorityThread uses from then on, so that the threads this one starts later do not inherit the lower
/// priority. False when the system refuses.
bool LowerCallingThreadPriority(int nice);

/// Starts `body` on a new thread with the process's normal priority (nice 0) and every allowed core, whatever the
/// calling thread's. A thread inherits its creator's nice value and affinity, and without privileges cannot lower its
/// nice value again; so once LowerCallingThreadPriority has run, threads are started by a launcher thread kept at the
/// normal priority. Before that, an ordinary std::thread with its affinity widened to every allowed core.
std::thread StartNormalPriorityThread(std::function<void()> body);

/// The nice value of thread `tid` of this process (0 when unknown); for tests and logs.
int NiceOfThread(int tid);

/// The cores thread `tid` of this process may run on; empty when unknown.
std::vector<int> CoresOfThread(int tid);

/// The calling thread's id (Linux thread id; 0 elsewhere).
int CurrentThreadId();

/// Thread ids of this process whose name starts with `prefix`.
std::vector<int> ThreadsNamed(std::string_view prefix);

}  // namespace ductile::studio
