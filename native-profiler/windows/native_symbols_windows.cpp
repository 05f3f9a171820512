// Native frame names on Windows: the module from the loader, the function from DbgHelp, which
// reads a .pdb when one is found on the symbol path (_NT_SYMBOL_PATH, the path recorded in the
// image) and the export table otherwise. Sampler thread only, in normal context: the loader
// lock and DbgHelp's own state are taken here, never while a thread is suspended.
#include "windows/win_common.h"
// After windows.h, whose types it uses.
#include <dbghelp.h>

#include <cstring>
#include <mutex>
#include <unordered_map>

#include "core/native_symbols.h"
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
  bool symbols_loaded = false;
};

struct State {
  std::mutex mu;  // DbgHelp is single-threaded; the image table rides along
  HANDLE process = nullptr;
  bool dbghelp_tried = false;
  bool dbghelp_ok = false;
  std::unordered_map<uintptr_t, Image> images;
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
  // Another image now sits where an unloaded one was; DbgHelp must forget the old one.
  if (known.symbols_loaded && st.dbghelp_ok) SymUnloadModule64(st.process, base);
  known = std::move(fresh);
  return &known;
}

bool ensure_dbghelp(State& st) {
  if (st.dbghelp_tried) return st.dbghelp_ok;
  st.dbghelp_tried = true;
  // A process handle of our own: DbgHelp keys its sessions by handle value, and the host may
  // already run one on GetCurrentProcess(). (DbgHelp's options are process-wide, so the ones
  // we add are benign ones.)
  HANDLE self = GetCurrentProcess();
  if (!DuplicateHandle(self, self, self, &st.process, 0, FALSE, DUPLICATE_SAME_ACCESS)) return false;
  SymSetOptions(SymGetOptions() | SYMOPT_UNDNAME | SYMOPT_DEFERRED_LOADS | SYMOPT_FAIL_CRITICAL_ERRORS |
                SYMOPT_NO_PROMPTS);
  // fInvadeProcess FALSE: modules are registered one by one as frames need them.
  st.dbghelp_ok = SymInitializeW(st.process, nullptr, FALSE) != FALSE;
  return st.dbghelp_ok;
}

// The function containing pc, when DbgHelp has a symbol that really covers it: like dladdr,
// SymFromAddr answers with the nearest symbol below pc, which from an export table is often
// a different function far below an internal one.
bool symbol_for(State& st, Image& img, uintptr_t pc, std::string* name, uintptr_t* start) {
  if (!ensure_dbghelp(st)) return false;
  if (!img.symbols_loaded) {
    img.symbols_loaded = true;
    // 0 also means "already known"; either way SymFromAddr can use the module, or it cannot.
    SymLoadModuleExW(st.process, nullptr, img.path.c_str(), nullptr, img.base, img.size, nullptr, 0);
  }
  alignas(SYMBOL_INFOW) unsigned char buf[sizeof(SYMBOL_INFOW) + kMaxSymbolName * sizeof(WCHAR)];
  std::memset(buf, 0, sizeof buf);
  auto* si = reinterpret_cast<SYMBOL_INFOW*>(buf);
  si->SizeOfStruct = sizeof(SYMBOL_INFOW);
  si->MaxNameLen = kMaxSymbolName;
  DWORD64 displacement = 0;
  if (!SymFromAddrW(st.process, pc, &displacement, si) || si->NameLen == 0) return false;
  const uintptr_t sym = static_cast<uintptr_t>(si->Address);
  if (sym > pc || sym < img.base) return false;
  bool covers = false;
  if (si->Size != 0) {
    covers = pc - sym < si->Size;
  } else {
    // Exports and public symbols carry no size; the unwind table knows the function's start.
    const uintptr_t fn = win::function_start(img.functions, pc);
    covers = fn != 0 ? fn == sym
                     : pc - sym < kLeafReach && !win::function_begins_between(img.functions, sym, pc);
  }
  if (!covers) return false;
  *name = win::utf8_from_wide(si->Name, si->NameLen < kMaxSymbolName ? si->NameLen : kMaxSymbolName);
  *start = sym;
  return true;
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
      if (symbol_for(st, *img, pc, &out->name, &start)) {
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
