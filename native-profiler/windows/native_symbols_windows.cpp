// Native frame names on Windows: the module from the loader, the function from DbgHelp, which
// reads a .pdb when one is found on the symbol path (_NT_SYMBOL_PATH, the path recorded in the
// image) and the export table otherwise. Sampler thread only, in normal context: the loader
// lock and DbgHelp's own state are taken here, never while a thread is suspended.
//
// Loading one module's symbols can take a second (under Wine, which reads the DWARF of its
// unix-side libraries: 1.1 s for ntdll.dll, 0.9 s for kernelbase.dll, measured) or much longer
// (a symbol server on _NT_SYMBOL_PATH). On the sampler thread that stopped wall sampling and the
// counters block for seconds, so a loader thread of our own loads modules one at a time; until a
// module's symbols are in, its frames are named from its export table, provisionally (not
// cached, so later samples get DbgHelp's name).
#include "windows/win_common.h"
// After windows.h, whose types it uses.
#include <dbghelp.h>

#include <cstring>
#include <algorithm>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/native_symbols.h"
#include "core/own_threads.h"
#include "core/platform.h"
#include "windows/pe_function_table.h"

namespace clrscope {
namespace {

constexpr ULONG kMaxSymbolName = 1024;
// Leaf functions (system-call stubs, say) have no .pdata entry and so no recorded extent; an
// export this close below the pc, with no function beginning in between, is taken to be it.
constexpr uintptr_t kLeafReach = 64;

struct Image {
  uintptr_t base = 0;
  uint32_t size = 0;
  uint32_t stamp = 0;
  bool managed = false;  // has a CLR header: its code is named by the runtime, not by us
  win::FunctionTable functions;  // empty unless the image is x64
  std::wstring path;
  std::string file;
  enum class Symbols : uint8_t { kNotAsked, kQueued, kLoaded, kFailed };
  Symbols symbols = Symbols::kNotAsked;
  // (rva, name) of the named exports that are code, by rva; built on first use.
  bool exports_read = false;
  std::vector<std::pair<uint32_t, std::string>> exports;
};

struct LoadRequest {
  uintptr_t base = 0;
  uint32_t size = 0;
  std::wstring path;
};

struct State {
  std::mutex mu;  // the image table and the loader's queue
  // DbgHelp is single-threaded: every Sym* call holds this. The sampler only tries it, so it
  // never waits for a load in progress.
  std::mutex dbghelp_mu;
  HANDLE process = nullptr;
  bool dbghelp_tried = false;
  bool dbghelp_ok = false;
  std::unordered_map<uintptr_t, Image> images;
  std::deque<LoadRequest> pending;
  bool loader_running = false;
};

State& state() {
  static State* s = new State;  // leaked: a detached sampler may still resolve during exit
  return *s;
}

bool read_headers(uintptr_t base, Image* img) {
  const auto* dos = reinterpret_cast<const IMAGE_DOS_HEADER*>(base);
  if (dos->e_magic != IMAGE_DOS_SIGNATURE || dos->e_lfanew <= 0 || dos->e_lfanew > 0x10000) return false;
  const auto* nt = reinterpret_cast<const IMAGE_NT_HEADERS*>(base + static_cast<uintptr_t>(dos->e_lfanew));
  if (nt->Signature != IMAGE_NT_SIGNATURE || nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR_MAGIC) return false;
  const IMAGE_OPTIONAL_HEADER& opt = nt->OptionalHeader;
  img->base = base;
  img->size = opt.SizeOfImage;
  img->stamp = nt->FileHeader.TimeDateStamp;
  img->managed = opt.NumberOfRvaAndSizes > IMAGE_DIRECTORY_ENTRY_COM_DESCRIPTOR &&
                 opt.DataDirectory[IMAGE_DIRECTORY_ENTRY_COM_DESCRIPTOR].VirtualAddress != 0;
  img->functions = win::FunctionTable{};
  // The x64 layout of .pdata; other machines pack it differently and go without.
  if (nt->FileHeader.Machine == IMAGE_FILE_MACHINE_AMD64 && opt.NumberOfRvaAndSizes > IMAGE_DIRECTORY_ENTRY_EXCEPTION) {
    const IMAGE_DATA_DIRECTORY& d = opt.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];
    if (d.VirtualAddress != 0 && d.Size >= sizeof(win::PdataEntry) && d.VirtualAddress <= img->size &&
        d.Size <= img->size - d.VirtualAddress) {
      img->functions.base = base;
      img->functions.size = img->size;
      img->functions.entries = reinterpret_cast<const win::PdataEntry*>(base + d.VirtualAddress);
      img->functions.count = d.Size / static_cast<uint32_t>(sizeof(win::PdataEntry));
    }
  }
  return img->size != 0;
}

std::wstring module_path(HMODULE mod) {
  std::wstring buf(512, L'\0');
  while (buf.size() <= 32768) {
    const DWORD n = GetModuleFileNameW(mod, &buf[0], static_cast<DWORD>(buf.size()));
    if (n == 0) return std::wstring();
    if (n < buf.size()) {
      buf.resize(n);
      return buf;
    }
    buf.resize(buf.size() * 2);  // truncated
  }
  return std::wstring();
}

Image* image_for(State& st, HMODULE mod) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(mod);
  Image fresh;
  if (!read_headers(base, &fresh)) return nullptr;
  fresh.path = module_path(mod);
  if (fresh.path.empty()) return nullptr;
  fresh.file = platform::file_name_of(win::utf8_from_wide(fresh.path.data(), fresh.path.size()));
  auto it = st.images.find(base);
  if (it == st.images.end()) return &st.images.emplace(base, std::move(fresh)).first->second;
  Image& known = it->second;
  if (known.size == fresh.size && known.stamp == fresh.stamp && known.path == fresh.path) return &known;
  // Another image now sits where an unloaded one was; DbgHelp must forget the old one (a wait
  // for a load in progress, in this rare case only).
  if (known.symbols == Image::Symbols::kLoaded) {
    std::lock_guard<std::mutex> dbghelp(st.dbghelp_mu);
    SymUnloadModule64(st.process, base);
  }
  known = std::move(fresh);
  return &known;
}

// The export directory's named code exports, bounds-checked against the mapped image.
void read_exports(Image& img) {
  img.exports_read = true;
  const uintptr_t base = img.base;
  const auto* dos = reinterpret_cast<const IMAGE_DOS_HEADER*>(base);
  const auto* nt = reinterpret_cast<const IMAGE_NT_HEADERS*>(base + static_cast<uintptr_t>(dos->e_lfanew));
  const IMAGE_OPTIONAL_HEADER& opt = nt->OptionalHeader;
  if (opt.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_EXPORT) return;
  const IMAGE_DATA_DIRECTORY& d = opt.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
  const uint64_t size = img.size;
  auto inside = [size](uint64_t rva, uint64_t bytes) { return rva <= size && bytes <= size - rva; };
  if (d.VirtualAddress == 0 || !inside(d.VirtualAddress, sizeof(IMAGE_EXPORT_DIRECTORY))) return;
  const auto* dir = reinterpret_cast<const IMAGE_EXPORT_DIRECTORY*>(base + d.VirtualAddress);
  if (!inside(dir->AddressOfFunctions, uint64_t{4} * dir->NumberOfFunctions) ||
      !inside(dir->AddressOfNames, uint64_t{4} * dir->NumberOfNames) ||
      !inside(dir->AddressOfNameOrdinals, uint64_t{2} * dir->NumberOfNames)) {
    return;
  }
  const auto* functions = reinterpret_cast<const DWORD*>(base + dir->AddressOfFunctions);
  const auto* names = reinterpret_cast<const DWORD*>(base + dir->AddressOfNames);
  const auto* ordinals = reinterpret_cast<const WORD*>(base + dir->AddressOfNameOrdinals);
  img.exports.reserve(dir->NumberOfNames);
  for (DWORD i = 0; i < dir->NumberOfNames; ++i) {
    if (ordinals[i] >= dir->NumberOfFunctions) continue;
    const DWORD rva = functions[ordinals[i]];
    // An rva inside the export directory is a forwarder ("NTDLL.RtlAllocateHeap"), not code.
    if (rva == 0 || rva >= size || (rva >= d.VirtualAddress && rva - d.VirtualAddress < d.Size)) continue;
    if (names[i] == 0 || names[i] >= size) continue;
    const char* name = reinterpret_cast<const char*>(base + names[i]);
    const size_t len = strnlen(name, static_cast<size_t>(std::min<uint64_t>(size - names[i], kMaxSymbolName)));
    img.exports.emplace_back(rva, std::string(name, len));
  }
  std::sort(img.exports.begin(), img.exports.end());
}

// Whether a symbol starting at sym (size 0: unknown) is the function that contains pc: like
// dladdr, both DbgHelp and an export table answer with the nearest symbol below pc, which is
// often a different function far below an internal one.
bool covers(const Image& img, uintptr_t pc, uintptr_t sym, uint64_t size) {
  if (sym > pc || sym < img.base) return false;
  if (size != 0) return pc - sym < size;
  // Exports and public symbols carry no size; the unwind table knows the function's start.
  const uintptr_t fn = win::function_start(img.functions, pc);
  return fn != 0 ? fn == sym : pc - sym < kLeafReach && !win::function_begins_between(img.functions, sym, pc);
}

bool export_for(Image& img, uintptr_t pc, std::string* name, uintptr_t* start) {
  if (!img.exports_read) read_exports(img);
  const uint32_t rva = static_cast<uint32_t>(pc - img.base);
  auto it = std::upper_bound(img.exports.begin(), img.exports.end(), rva,
                             [](uint32_t r, const std::pair<uint32_t, std::string>& e) { return r < e.first; });
  if (it == img.exports.begin()) return false;
  --it;
  const uintptr_t sym = img.base + it->first;
  if (!covers(img, pc, sym, 0)) return false;
  *name = it->second;
  *start = sym;
  return true;
}

bool ensure_dbghelp(State& st) {
  if (st.dbghelp_tried) return st.dbghelp_ok;
  st.dbghelp_tried = true;
  // A process handle of our own: DbgHelp keys its sessions by handle value, and the host may
  // already run one on GetCurrentProcess(). (DbgHelp's options are process-wide, so the ones
  // we add are benign ones.)
  HANDLE self = GetCurrentProcess();
  if (!DuplicateHandle(self, self, self, &st.process, 0, FALSE, DUPLICATE_SAME_ACCESS)) return false;
  // No SYMOPT_DEFERRED_LOADS: with it SymLoadModuleEx only registers the module and the first
  // SymFromAddr reads its symbols, on the sampler thread (0.1-0.5 s a module under Wine, measured).
  SymSetOptions((SymGetOptions() & ~static_cast<DWORD>(SYMOPT_DEFERRED_LOADS)) | SYMOPT_UNDNAME |
                SYMOPT_FAIL_CRITICAL_ERRORS | SYMOPT_NO_PROMPTS);
  // fInvadeProcess FALSE: modules are registered one by one as frames need them.
  st.dbghelp_ok = SymInitializeW(st.process, nullptr, FALSE) != FALSE;
  return st.dbghelp_ok;
}

// DbgHelp's symbol for pc when one really covers it. dbghelp_mu is held by the caller.
bool dbghelp_symbol(State& st, Image& img, uintptr_t pc, std::string* name, uintptr_t* start) {
  alignas(SYMBOL_INFOW) unsigned char buf[sizeof(SYMBOL_INFOW) + kMaxSymbolName * sizeof(WCHAR)];
  std::memset(buf, 0, sizeof buf);
  auto* si = reinterpret_cast<SYMBOL_INFOW*>(buf);
  si->SizeOfStruct = sizeof(SYMBOL_INFOW);
  si->MaxNameLen = kMaxSymbolName;
  DWORD64 displacement = 0;
  if (!SymFromAddrW(st.process, pc, &displacement, si) || si->NameLen == 0) return false;
  const uintptr_t sym = static_cast<uintptr_t>(si->Address);
  if (!covers(img, pc, sym, si->Size)) return false;
  *name = win::utf8_from_wide(si->Name, si->NameLen < kMaxSymbolName ? si->NameLen : kMaxSymbolName);
  *start = sym;
  return true;
}

void start_loader(State& st);

// The function containing pc: DbgHelp's answer once the module's symbols are loaded, the export
// table's (provisional) before, or while the loader holds DbgHelp. st.mu is held by the caller.
bool symbol_for(State& st, Image& img, uintptr_t pc, std::string* name, uintptr_t* start, bool* provisional) {
  *provisional = false;
  if (img.symbols == Image::Symbols::kLoaded) {
    std::unique_lock<std::mutex> dbghelp(st.dbghelp_mu, std::try_to_lock);
    if (dbghelp.owns_lock()) return dbghelp_symbol(st, img, pc, name, start);
    *provisional = true;
  } else if (img.symbols == Image::Symbols::kNotAsked) {
    img.symbols = Image::Symbols::kQueued;
    st.pending.push_back(LoadRequest{img.base, img.size, img.path});
    start_loader(st);
    *provisional = true;
  } else if (img.symbols == Image::Symbols::kQueued) {
    *provisional = true;
  }
  return export_for(img, pc, name, start);
}

// Loads the queued modules' symbols one at a time, then ends. It holds a reference to this DLL
// and leaves through FreeLibraryAndExitThread, so a detach cannot unmap the code it runs.
DWORD WINAPI loader_main(LPVOID self_module) {
  mark_own_thread();
  platform::name_current_thread("clrscope-symbols");
  State& st = state();
  for (;;) {
    LoadRequest r;
    {
      std::lock_guard<std::mutex> lock(st.mu);
      if (st.pending.empty()) {
        st.loader_running = false;
        break;
      }
      r = std::move(st.pending.front());
      st.pending.pop_front();
    }
    bool loaded = false;
    {
      std::lock_guard<std::mutex> dbghelp(st.dbghelp_mu);
      // 0 also means "already known"; either way SymFromAddr can use the module, or it cannot.
      if (ensure_dbghelp(st)) {
        SymLoadModuleExW(st.process, nullptr, r.path.c_str(), nullptr, r.base, r.size, nullptr, 0);
        loaded = true;
      }
    }
    std::lock_guard<std::mutex> lock(st.mu);
    auto it = st.images.find(r.base);
    // The image may have been replaced by another while its symbols loaded.
    if (it != st.images.end() && it->second.path == r.path && it->second.symbols == Image::Symbols::kQueued) {
      it->second.symbols = loaded ? Image::Symbols::kLoaded : Image::Symbols::kFailed;
    } else if (loaded) {
      std::lock_guard<std::mutex> dbghelp(st.dbghelp_mu);
      SymUnloadModule64(st.process, r.base);
    }
  }
  unmark_own_thread();
  FreeLibraryAndExitThread(static_cast<HMODULE>(self_module), 0);
  return 0;
}

void start_loader(State& st) {
  if (st.loader_running) return;
  HMODULE self = nullptr;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS, reinterpret_cast<LPCWSTR>(&loader_main), &self)) return;
  HANDLE thread = CreateThread(nullptr, 0, loader_main, self, 0, nullptr);
  if (thread == nullptr) {
    FreeLibrary(self);
    return;
  }
  CloseHandle(thread);
  st.loader_running = true;
}

bool ascii_iequal(const std::string& a, const char* b) {
  const size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

bool is_thread_start(const std::string& module, const std::string& symbol) {
  // Every thread, the main one included, starts in ntdll!RtlUserThreadStart, which calls
  // kernel32!BaseThreadInitThunk, which calls the thread's start routine.
  return (ascii_iequal(module, "kernel32.dll") && symbol == "BaseThreadInitThunk") ||
         (ascii_iequal(module, "ntdll.dll") && symbol == "RtlUserThreadStart");
}

}  // namespace

bool resolve_native(uintptr_t pc, ResolvedFrame* out) {
  HMODULE mod = nullptr;
  // Without GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT the module stays pinned while we read
  // its headers and DbgHelp maps its symbols; an unload in between would fault the sampler.
  // JIT-compiled code and runtime stubs belong to no module and end here.
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS, reinterpret_cast<LPCWSTR>(pc), &mod) ||
      mod == nullptr) {
    return false;
  }
  bool native = false;
  {
    State& st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    Image* img = image_for(st, mod);
    // ReadyToRun code of managed assemblies lives in images the loader mapped; its names come
    // from the runtime (the caller asks it next), not from the assembly's export table.
    if (img != nullptr && !img->managed) {
      native = true;
      out->kind = 1;
      out->module = img->file;
      out->module_path = win::utf8_from_wide(img->path.data(), img->path.size());
      out->name.clear();
      uintptr_t start = 0;
      if (symbol_for(st, *img, pc, &out->name, &start, &out->provisional)) {
        out->key = start;
      } else {
        out->name.clear();
        out->key = img->base;
      }
      out->thread_root = is_thread_start(out->module, out->name);
    }
  }
  FreeLibrary(mod);
  return native;
}

}  // namespace clrscope
