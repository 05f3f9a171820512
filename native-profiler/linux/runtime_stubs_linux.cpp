// The runtime's perf map read as it grows, and /proc/self/maps for anonymous executable memory.
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/log.h"
#include "core/platform.h"
#include "core/runtime_stubs.h"

namespace clrscope {
namespace {

std::string config_value(const char* name) {
  // The runtime reads its settings under either prefix.
  for (const char* prefix : {"DOTNET_", "COMPlus_"}) {
    const std::string v = platform::env((std::string(prefix) + name).c_str());
    if (!v.empty()) return v;
  }
  return std::string();
}

}  // namespace

std::string runtime_perf_map_path(bool enabled) {
  const std::string type = config_value("PerfMapEnabled");
  // 1: perf map and jitdump, 3: perf map only; 2 writes jitdump alone.
  if (!enabled && type != "1" && type != "3") return std::string();
  std::string dir = config_value("PerfMapJitDumpPath");
  if (dir.empty()) dir = "/tmp";
  return dir + "/perf-" + std::to_string(platform::process_id()) + ".map";
}

RuntimeStubNames::~RuntimeStubNames() {
  if (map_fd_ != nullptr) map_fd_->close();
}

void RuntimeStubNames::configure(const std::string& path, bool owned) {
  path_ = path;
  owned_ = owned;
  if (!owned_ || path_.empty()) return;
  // Opened (and so removed) now rather than at the first stub a sample lands in: a recording
  // that never meets one would otherwise leave the map behind in a shared folder.
  open_map();
  // The runtime writes the images it loaded beside the map; nothing here reads that file.
  const size_t slash = path_.rfind('/');
  const std::string info = path_.substr(0, slash + 1) + "perfinfo-" + std::to_string(platform::process_id()) + ".map";
  if (unlink(info.c_str()) != 0 && errno != ENOENT) log_line("perf info %s: could not remove it", info.c_str());
}

void RuntimeStubNames::open_map() {
  if (map_fd_ != nullptr || map_lost_ || path_.empty()) return;
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // the runtime has not written it yet
  map_fd_ = std::make_unique<OwnDescriptor>(fd);
  // Open is enough: the runtime keeps writing to its descriptor of the same file.
  if (owned_ && unlink(path_.c_str()) != 0) log_line("perf map %s: could not remove it once read", path_.c_str());
}

void RuntimeStubNames::read_map() {
  open_map();
  if (map_fd_ == nullptr || map_lost_) return;
  char buf[16384];
  for (;;) {
    if (!map_fd_->owned()) {
      map_lost_ = true;
      log_line("perf map: the program closed its descriptor (%d); stubs from now on stay unnamed", map_fd_->fd());
      return;
    }
    const ssize_t n = read(map_fd_->fd(), buf, sizeof buf);
    if (n <= 0) break;
    map_.feed(buf, static_cast<size_t>(n));
  }
}

bool RuntimeStubNames::map_name(uintptr_t pc, std::string* out) {
  if (map_.lookup(pc, out)) return true;
  read_map();
  return map_.lookup(pc, out);
}

bool RuntimeStubNames::anonymous_executable(uintptr_t pc) {
  for (const Range& r : anonymous_) {
    if (pc >= r.lo && pc < r.hi) return true;
  }
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  anonymous_.clear();
  char line[4096];
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long lo = 0, hi = 0, inode = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line, "%lx-%lx %7s %*x %*s %lu %n", &lo, &hi, perms, &inode, &path_at) < 4) continue;
    if (std::strchr(perms, 'x') == nullptr) continue;
    const char* path = line + path_at;
    // With W^X on, the runtime's executable memory is a double-mapped memfd rather than
    // anonymous; it is still code no file names.
    const bool anonymous = (inode == 0 && (path[0] == '\n' || path[0] == '\0' || std::strncmp(path, "[anon", 5) == 0)) ||
                           std::strncmp(path, "/memfd:doublemapper", 19) == 0;
    if (anonymous) anonymous_.push_back(Range{lo, hi});
  }
  std::fclose(maps);
  for (const Range& r : anonymous_) {
    if (pc >= r.lo && pc < r.hi) return true;
  }
  return false;
}

bool RuntimeStubNames::name(uintptr_t pc, std::string* out) {
  std::string line;
  if (map_name(pc, &line)) {
    *out = perf_map_label(line);
    return true;
  }
  if (!anonymous_executable(pc)) return false;
  *out = "[runtime stub]";
  return true;
}

}  // namespace clrscope
