// read-mapping.exe PID BYTES [--wait-ms N]: prints, as hex on one line, the first BYTES bytes of
// the named file mapping Local\clrscope-PID, which clrscope's Windows profiler publishes its
// counters block in (native-profiler/windows/shared_memory_windows.cpp). A Windows-side reader
// for the Wine tests: the mapping is a Wine server object that no Linux process can open.
// Opened read-only, as the workstation opens it. Exit 1 with one sentence when it cannot.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <cstdio>
#include <cwchar>
#include <cstdlib>

int wmain(int argc, wchar_t** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: read-mapping PID BYTES [--wait-ms N]\n");
    return 2;
  }
  const unsigned long pid = std::wcstoul(argv[1], nullptr, 10);
  const size_t bytes = std::wcstoul(argv[2], nullptr, 10);
  unsigned long wait_ms = 0;
  if (argc >= 5 && std::wcscmp(argv[3], L"--wait-ms") == 0) wait_ms = std::wcstoul(argv[4], nullptr, 10);
  wchar_t name[64];
  std::swprintf(name, 64, L"Local\\clrscope-%lu", pid);
  HANDLE mapping = nullptr;
  for (unsigned long waited = 0;; waited += 50) {
    mapping = OpenFileMappingW(FILE_MAP_READ, FALSE, name);
    if (mapping != nullptr || waited >= wait_ms) break;
    Sleep(50);
  }
  if (mapping == nullptr) {
    std::fprintf(stderr, "read-mapping: cannot open Local\\clrscope-%lu (error %lu)\n", pid, GetLastError());
    return 1;
  }
  const auto* view = static_cast<const unsigned char*>(MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, bytes));
  if (view == nullptr) {
    std::fprintf(stderr, "read-mapping: cannot map %zu bytes of Local\\clrscope-%lu (error %lu)\n", bytes, pid, GetLastError());
    return 1;
  }
  for (size_t i = 0; i < bytes; ++i) std::printf("%02x", view[i]);
  std::printf("\n");
  std::fflush(stdout);
  UnmapViewOfFile(view);
  CloseHandle(mapping);
  return 0;
}
