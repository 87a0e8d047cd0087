// `ductile-cli sweep` (sweep_command.h). The runs are child processes of this program's own `run` command; Open MPI
// (from Debian) only splits them among ranks and waits for all before the summary: no scheduler of our own beyond
// keeping --jobs children busy.
#include "sweep_command.h"

#include <fcntl.h>
#include <mpi.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "atomic_file.h"
#include "ductile/scene.h"
#include "run_command.h"

extern char** environ;

namespace ductile::cli {
namespace {

namespace fs = std::filesystem;

struct Grid {
  std::string key;
  std::vector<std::string> values;
};

// "KEY=V1,V2,..."; false when malformed.
bool ParseGrid(const std::string& text, Grid& grid) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return false;
  grid.key = text.substr(0, eq);
  std::stringstream values(text.substr(eq + 1));
  for (std::string v; std::getline(values, v, ',');) {
    if (v.empty()) return false;
    grid.values.push_back(v);
  }
  return !grid.values.empty();
}

std::string RunName(std::size_t i) {
  std::ostringstream name;
  name << "run_" << std::setw(4) << std::setfill('0') << i;
  return name.str();
}

// The overrides of run i: the grids' product, the last grid varying fastest.
std::vector<std::string> Combination(const std::vector<Grid>& grids, std::size_t i) {
  std::vector<std::string> sets(grids.size());
  for (std::size_t g = grids.size(); g-- > 0;) {
    sets[g] = grids[g].key + "=" + grids[g].values[i % grids[g].values.size()];
    i /= grids[g].values.size();
  }
  return sets;
}

// The last non-empty line of a file (a failed run's reason, from its log).
std::string LastLine(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct Child {
  std::size_t run = 0;
  std::chrono::steady_clock::time_point start;
  int lock = -1;  // the run's lock file, held while it runs
};

// One run of the sweep: the subcommand and arguments it runs with (its folder's outputs are added), and its values
// in the summary's columns.
struct Job {
  std::vector<std::string> args;
  std::vector<std::string> values;
};

class Sweeper {
 public:
  Sweeper(const SweepOptions& o, std::vector<std::string> columns, std::vector<Job> jobs)
      : o_(o), columns_(std::move(columns)), jobs_(std::move(jobs)) {}
  std::size_t runs() const { return jobs_.size(); }

  // Runs this process's share: run i when i mod size == rank. Each run is claimed by an exclusive lock on
  // DIR/.locks/run_NNNN (flock: released by the kernel when its holder dies, SIGKILL included), so two sweeps on
  // one folder (a restarted sweep while ranks of a killed mpirun still run, a sweep started twice) never run the
  // same run at once: a run locked elsewhere waits at the back of the queue and is skipped once it is done.
  void RunShare(int rank, int size, int jobs) {
    rank_ = rank;
    std::deque<std::size_t> todo;
    for (std::size_t i = static_cast<std::size_t>(rank); i < runs(); i += static_cast<std::size_t>(size))
      if (!Done(i)) todo.push_back(i);
    std::error_code ignored;
    fs::create_directories(fs::path(o_.out) / ".locks", ignored);
    std::map<pid_t, Child> running;
    while (!todo.empty() || !running.empty()) {
      for (std::size_t tries = todo.size(); tries > 0 && static_cast<int>(running.size()) < jobs; --tries) {
        const std::size_t i = todo.front();
        todo.pop_front();
        int lock = -1;
        if (!TryLock(i, lock)) {
          todo.push_back(i);  // running elsewhere now
          continue;
        }
        if (Done(i)) {  // finished elsewhere meanwhile
          Unlock(lock);
          continue;
        }
        const auto start = std::chrono::steady_clock::now();
        if (const pid_t pid = Start(i, jobs, lock); pid > 0) {
          running[pid] = {i, start, lock};
        } else {
          Unlock(lock);
        }
      }
      if (running.empty()) {
        if (!todo.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all locked elsewhere
        continue;
      }
      int status = 0;
      pid_t pid = 0;
      do {
        pid = waitpid(-1, &status, 0);
      } while (pid < 0 && errno == EINTR);  // a signal (the terminal's, the MPI runtime's) is not the runs' end
      if (pid < 0) {                        // no child left to wait for (ECHILD): those still listed cannot be followed
        const std::string why = std::string("the sweep lost its run (waitpid: ") + std::strerror(errno) + ")";
        for (const auto& [lost, child] : running) {
          Finish(child, -1, why);
          Unlock(child.lock);
        }
        running.clear();
        break;
      }
      const auto it = running.find(pid);
      if (it == running.end()) continue;
      Finish(it->second, status);
      Unlock(it->second.lock);
      running.erase(it);
    }
  }

  // DIR/summary.csv from the runs' result files. Returns how many runs have none (their status "missing"). Throws
  // std::runtime_error when the summary cannot be written.
  std::size_t WriteSummary() const {
    std::size_t missing = 0;
    AtomicFile file(fs::path(o_.out) / "summary.csv");
    {
      std::ofstream& out = file.stream();
      out << "run";
      for (const std::string& c : columns_) out << ',' << CsvField(c);
      out << ",status,exit_code,wall_s,rank,reason\n";
      for (std::size_t i = 0; i < runs(); ++i) {
        std::map<std::string, std::string> result;
        std::ifstream in(fs::path(o_.out) / RunName(i) / "result.txt");
        for (std::string line; std::getline(in, line);)
          if (const std::size_t eq = line.find('='); eq != std::string::npos)
            result[line.substr(0, eq)] = line.substr(eq + 1);
        if (!result.count("status")) ++missing;
        out << RunName(i);
        for (const std::string& v : jobs_[i].values) out << ',' << CsvField(v);
        out << ',' << (result.count("status") ? result["status"] : "missing") << ',' << result["exit_code"] << ','
            << result["wall_s"] << ',' << result["rank"] << ',' << CsvField(result["reason"]) << '\n';
      }
    }
    file.Commit();
    return missing;
  }

 private:
  bool Done(std::size_t i) const { return fs::exists(fs::path(o_.out) / RunName(i) / "result.txt"); }

  // Takes the lock of run i without waiting into `fd`; false when another process holds it. A lock file that cannot
  // be opened (a filesystem without them) leaves the run unlocked (fd −1) rather than never run.
  bool TryLock(std::size_t i, int& fd) const {
    const std::string path = (fs::path(o_.out) / ".locks" / RunName(i)).string();
    fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return true;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    close(fd);
    fd = -1;
    return false;
  }
  static void Unlock(int fd) {
    if (fd >= 0) close(fd);
  }

  // Starts run i as `SELF run SCENE --set ...` (or `SELF replay LOG`) with --stats, --trajectory and --quiet in
  // DIR/run_i.partial, its output in log.txt there. Returns the child's pid, or 0 when it could not start (its
  // result says why).
  pid_t Start(std::size_t i, int jobs, int lock) {
    const fs::path partial = fs::path(o_.out) / (RunName(i) + ".partial");
    std::error_code error;
    fs::remove_all(partial, error);  // a run cut off by an earlier, interrupted sweep
    if (fs::create_directories(partial, error); error) {
      std::cerr << "sweep: " << RunName(i) << ": cannot create '" << partial.string() << "': " << error.message()
                << '\n';
      return 0;
    }
    std::vector<std::string> args{o_.self};
    args.insert(args.end(), jobs_[i].args.begin(), jobs_[i].args.end());
    args.insert(args.end(), {"--quiet", "--stats", (partial / "stats.json").string(), "--trajectory",
                             (partial / "trajectory.csv").string()});
    if (jobs > 1) args.insert(args.end(), {"--threads", "1"});
    if (o_.duration) args.insert(args.end(), {"--duration", std::to_string(*o_.duration)});
    if (o_.video) args.insert(args.end(), {"--video", (partial / "run.mp4").string(), "--size", "640x360"});
    std::ofstream(partial / "command.txt") << [&] {
      std::string text;
      for (const std::string& a : args) text += a + "\n";
      return text;
    }();
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = (partial / "log.txt").string();
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    // The child holds the run's lock too (as its descriptor 3), so that a run whose sweep was killed stays locked
    // until the run itself ends: a restarted sweep then waits for it instead of deleting its folder.
    if (lock >= 0) posix_spawn_file_actions_adddup2(&actions, lock, 3);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, o_.self.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned == 0) return pid;
    Finish({i, std::chrono::steady_clock::now()}, -1, "could not start " + o_.self + ": " + std::strerror(spawned));
    return 0;
  }

  // Writes the run's result.txt and renames its folder into place (the run counts as done from then on). `status`
  // is waitpid's, or −1 with the reason when there is none. A result or folder that cannot be written is said on
  // stderr, and the run stays without a result (its summary row "missing", the sweep's exit code 1).
  void Finish(const Child& child, int status, const std::string& failure = {}) const {
    const fs::path partial = fs::path(o_.out) / (RunName(child.run) + ".partial");
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - child.start).count();
    const int code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::string reason;
    if (status < 0) {
      reason = failure;
    } else if (WIFSIGNALED(status)) {
      reason = "killed by signal " + std::to_string(WTERMSIG(status));
    } else if (code != 0) {
      reason = LastLine(partial / "log.txt");
    }
    std::ofstream result(partial / "result.txt");
    result << "status=" << (code == 0 ? "ok" : "failed") << "\nexit_code=" << code << "\nwall_s=" << wall
           << "\nrank=" << rank_ << "\nreason=" << reason << '\n';
    result.close();
    const fs::path done = fs::path(o_.out) / RunName(child.run);
    std::error_code error;
    if (!result) {
      std::cerr << "sweep: " << RunName(child.run) << ": cannot write " << (partial / "result.txt").string() << '\n';
      fs::remove(partial / "result.txt", error);  // a truncated result would read as done
      return;
    }
    fs::remove_all(done, error);
    if (fs::rename(partial, done, error); error)
      std::cerr << "sweep: " << RunName(child.run) << ": cannot rename '" << partial.string()
                << "': " << error.message() << '\n';
  }

  const SweepOptions& o_;
  std::vector<std::string> columns_;
  std::vector<Job> jobs_;
  int rank_ = 0;
};

// The runs of a grid sweep: the product of the grids and the seeds, the last varying fastest. Returns the exit code.
int GridJobs(const SweepOptions& options, std::vector<std::string>& columns, std::vector<Job>& jobs) {
  std::vector<Grid> grids;
  for (const std::string& text : options.grids) {
    Grid grid;
    if (!ParseGrid(text, grid)) {
      std::cerr << "--grid must be KEY=V1,V2,... with no empty value, got '" << text << "'\n";
      return kExitBadInput;
    }
    if (grid.key == "simulation.seed" && options.seeds > 0) {
      std::cerr << "sweep: --seeds sets simulation.seed; give it or --grid simulation.seed=..., not both\n";
      return kExitBadInput;
    }
    grids.push_back(grid);
    columns.push_back(grid.key);
  }
  if (options.seeds > 0) {
    Grid seeds{"simulation.seed", {}};
    for (int s = 0; s < options.seeds; ++s) seeds.values.push_back(std::to_string(s));
    grids.push_back(seeds);
    columns.push_back(seeds.key);
  }
  try {
    LoadScene(options.scene);  // the scene itself loads (a bad grid value is its runs' failure, not the sweep's)
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  }
  std::size_t runs = 1;
  for (const Grid& g : grids) runs *= g.values.size();
  for (std::size_t i = 0; i < runs; ++i) {
    Job job{{"run", options.scene}, {}};
    for (const std::string& s : options.sets) job.args.insert(job.args.end(), {"--set", s});
    for (const std::string& s : Combination(grids, i)) {
      job.args.insert(job.args.end(), {"--set", s});
      job.values.push_back(s.substr(s.find('=') + 1));
    }
    jobs.push_back(job);
  }
  return kExitOk;
}

// The runs of a bulk replay: every *.demo.yaml in the folder, by name.
int ReplayJobs(const SweepOptions& options, std::vector<std::string>& columns, std::vector<Job>& jobs) {
  std::vector<fs::path> logs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(options.replay, error))
    if (entry.path().string().ends_with(".demo.yaml")) logs.push_back(entry.path());
  if (error || logs.empty()) {
    std::cerr << "sweep --replay: no demo logs (*.demo.yaml) in '" << options.replay << "'\n";
    return kExitBadInput;
  }
  std::sort(logs.begin(), logs.end());
  columns = {"demo_log"};
  for (const fs::path& log : logs) jobs.push_back({{"replay", fs::absolute(log).string()}, {log.filename().string()}});
  return kExitOk;
}

}  // namespace

int Sweep(const SweepOptions& options) {
  std::vector<std::string> columns;
  std::vector<Job> jobs;
  if (options.replay.empty() == options.scene.empty()) {
    std::cerr << "sweep: give a SCENE with --grid, or --replay DIR_OF_LOGS\n";
    return kExitBadInput;
  }
  if (!options.replay.empty() && !options.grids.empty()) {
    std::cerr << "sweep: --grid goes with a SCENE, not with --replay\n";
    return kExitBadInput;
  }
  if (options.scene.size() > 0 && options.grids.empty() && options.seeds == 0) {
    std::cerr << "sweep: a SCENE needs at least one --grid KEY=V1,V2,... or --seeds N\n";
    return kExitBadInput;
  }
  if (!options.replay.empty() && options.seeds > 0) {
    std::cerr << "sweep: --seeds goes with a SCENE, not with --replay\n";
    return kExitBadInput;
  }
  if (!options.replay.empty() && options.duration) {
    std::cerr << "sweep: --duration goes with a SCENE; a replay runs as long as its demo log\n";
    return kExitBadInput;
  }
  if (const int code = options.replay.empty() ? GridJobs(options, columns, jobs) : ReplayJobs(options, columns, jobs);
      code != kExitOk)
    return code;
  std::error_code error;
  fs::create_directories(options.out, error);
  if (error || access(options.out.c_str(), W_OK) != 0) {
    std::cerr << "sweep: cannot write the folder '" << options.out << "'\n";
    return kExitBadInput;
  }
  // Under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE) the ranks split the runs; alone, this process runs them all.
  const bool mpi = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  int rank = 0, size = 1;
  if (mpi) {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  const int concurrent =
      options.jobs > 0 ? options.jobs : (mpi ? 1 : std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  Sweeper sweeper(options, columns, std::move(jobs));
  sweeper.RunShare(rank, size, concurrent);
  if (mpi) MPI_Barrier(MPI_COMM_WORLD);
  int code = kExitOk;
  if (rank == 0) {
    try {
      const std::size_t missing = sweeper.WriteSummary();
      std::cout << "sweep: " << sweeper.runs() << " runs in " << options.out << ", summary " << options.out
                << "/summary.csv\n";
      if (missing > 0) {
        std::cerr << "sweep: " << missing << " of " << sweeper.runs()
                  << " runs have no result (status missing in the summary; see the messages above)\n";
        code = kExitFailure;
      }
    } catch (const std::runtime_error& e) {
      std::cerr << "sweep: " << e.what() << '\n';
      code = kExitFailure;
    }
  }
  if (mpi) MPI_Finalize();
  return code;
}

}  // namespace ductile::cli
