// The counters block's shared memory on Windows: a named, pagefile-backed file mapping in the
// session's namespace whose security descriptor admits only the creating user.
#include "windows/win_common.h"

#include <sddl.h>

#include <cstdio>
#include <cwchar>
#include <string>

#include "core/log.h"
#include "core/platform.h"

namespace clrscope::platform {

namespace {

// "D:P(A;;GA;;;<this user's SID>)": all access for the process's user, nothing for anyone else,
// nothing inherited. The user's SID rather than OWNER RIGHTS ("OW"): an elevated process's
// objects are owned by Administrators, not by the user the workstation runs as, and Wine 8
// does not resolve OWNER RIGHTS at all (another process of the same user got access denied).
bool owner_only_sddl(std::wstring* out) {
  HANDLE token = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) return false;
  alignas(TOKEN_USER) unsigned char buffer[256];
  DWORD got = 0;
  const bool ok = GetTokenInformation(token, TokenUser, buffer, sizeof buffer, &got) != 0;
  CloseHandle(token);
  if (!ok) return false;
  wchar_t* sid = nullptr;
  if (!ConvertSidToStringSidW(reinterpret_cast<TOKEN_USER*>(buffer)->User.Sid, &sid)) return false;
  *out = std::wstring(L"D:P(A;;GA;;;") + sid + L")";
  LocalFree(sid);
  return true;
}

}  // namespace

bool create_shared_memory(uint32_t pid, size_t size, SharedMemory* out) {
  wchar_t name[64];
  std::swprintf(name, 64, L"Local\\clrscope-%u", pid);
  SECURITY_ATTRIBUTES sa{};
  sa.nLength = sizeof sa;
  PSECURITY_DESCRIPTOR sd = nullptr;
  std::wstring sddl;
  if (!owner_only_sddl(&sddl) ||
      !ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, &sd, nullptr)) {
    return false;
  }
  sa.lpSecurityDescriptor = sd;
  HANDLE mapping = CreateFileMappingW(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE, 0, static_cast<DWORD>(size), name);
  const DWORD created = GetLastError();
  LocalFree(sd);
  if (mapping == nullptr) return false;
  // A named object cannot be unlinked as Linux unlinks a leftover: a reader still holding an
  // earlier process's block (same pid, reused) keeps the name alive, and the call opens that
  // object. Writing our block over it is what the reader wants; the log says it happened.
  if (created == ERROR_ALREADY_EXISTS) log_line("Local\\clrscope-%u already existed (a reader kept an earlier process's block); publishing over it", pid);
  void* p = MapViewOfFile(mapping, FILE_MAP_ALL_ACCESS, 0, 0, size);
  if (p == nullptr) {
    CloseHandle(mapping);
    return false;
  }
  out->address = p;
  out->size = size;
  out->handle = reinterpret_cast<uintptr_t>(mapping);
  return true;
}

void release_shared_memory(SharedMemory* memory, bool) {
  // A named mapping disappears with its last handle; readers holding one keep their view.
  if (memory->address != nullptr) UnmapViewOfFile(memory->address);
  if (memory->handle != 0) CloseHandle(reinterpret_cast<HANDLE>(memory->handle));
  *memory = SharedMemory{};
}

uint32_t os_thread_count() {
  // Counting threads on Windows needs a toolhelp snapshot of the whole system; too heavy to do
  // every publish. Left at zero here and listed as such in structs/ipcblock/README.md.
  return 0;
}

// The thread's description (SetThreadDescription), which the runtime sets from Thread.Name and
// for its own threads: the only name an attached profiler can learn for threads named before it
// came, since ThreadNameChanged reports later renames alone. Looked up rather than linked, as
// it exists from Windows 10 1607 on.
std::string os_thread_name(uint32_t tid) {
  using GetDescription = HRESULT(WINAPI*)(HANDLE, PWSTR*);
  HMODULE kernel = GetModuleHandleW(L"kernel32.dll");
  FARPROC proc = kernel != nullptr ? GetProcAddress(kernel, "GetThreadDescription") : nullptr;
  if (proc == nullptr || tid == 0) return std::string();
  HANDLE h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, tid);
  if (h == nullptr) return std::string();
  std::string name;
  PWSTR wide = nullptr;
  // Thread ids are system-wide: the id may name a thread of another process.
  if (GetProcessIdOfThread(h) == GetCurrentProcessId() &&
      SUCCEEDED(reinterpret_cast<GetDescription>(reinterpret_cast<void (*)()>(proc))(h, &wide)) && wide != nullptr) {
    name = win::utf8_from_wide(wide, wcslen(wide));
  }
  if (wide != nullptr) LocalFree(wide);
  CloseHandle(h);
  return name;
}

}  // namespace clrscope::platform
