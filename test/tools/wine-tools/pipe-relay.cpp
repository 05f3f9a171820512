// pipe-relay.exe PIPE: the Wine tests' bridge from Linux to a Windows runtime's diagnostics
// named pipe. Listens on an ephemeral loopback TCP port, prints "PORT <n>" on stdout, and for
// each connection it accepts opens a new client instance of the named pipe PIPE (for example
// \\.\pipe\dotnet-diagnostic-1234) and copies bytes both ways until either side closes. Each
// diagnostics command takes its own connection, as it does on the pipe. Runs until killed.
// Test-only: the product talks to the pipe from Node on Windows directly.
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

#include <cstdio>
#include <cstring>
#include <thread>

namespace {

const wchar_t* g_pipe = nullptr;

HANDLE open_pipe() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    HANDLE h = CreateFileW(g_pipe, GENERIC_READ | GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, 0, nullptr);
    if (h != INVALID_HANDLE_VALUE) return h;
    // Busy: the runtime opens its next instance once it has taken the previous connection.
    if (GetLastError() != ERROR_PIPE_BUSY) return INVALID_HANDLE_VALUE;
    WaitNamedPipeW(g_pipe, 100);
  }
  return INVALID_HANDLE_VALUE;
}

void pipe_to_socket(HANDLE pipe, SOCKET s) {
  char buf[65536];
  for (;;) {
    DWORD n = 0;
    if (!ReadFile(pipe, buf, sizeof buf, &n, nullptr) || n == 0) break;
    for (DWORD done = 0; done < n;) {
      const int w = send(s, buf + done, static_cast<int>(n - done), 0);
      if (w <= 0) return;
      done += static_cast<DWORD>(w);
    }
  }
  shutdown(s, SD_SEND);
}

void relay(SOCKET s) {
  HANDLE pipe = open_pipe();
  if (pipe == INVALID_HANDLE_VALUE) {
    std::fprintf(stderr, "pipe-relay: cannot open the pipe (error %lu)\n", GetLastError());
    closesocket(s);
    return;
  }
  std::thread back(pipe_to_socket, pipe, s);
  char buf[65536];
  for (;;) {
    const int n = recv(s, buf, sizeof buf, 0);
    if (n <= 0) break;
    DWORD written = 0;
    if (!WriteFile(pipe, buf, static_cast<DWORD>(n), &written, nullptr) || written != static_cast<DWORD>(n)) break;
  }
  // The runtime answers and then closes its end, which ends pipe_to_socket; a client that hung
  // up early ends it through the pipe's close.
  back.join();
  CloseHandle(pipe);
  closesocket(s);
}

}  // namespace

int wmain(int argc, wchar_t** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: pipe-relay \\\\.\\pipe\\NAME\n");
    return 2;
  }
  g_pipe = argv[1];
  WSADATA data;
  if (WSAStartup(MAKEWORD(2, 2), &data) != 0) return 1;
  SOCKET listener = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int len = sizeof addr;
  if (listener == INVALID_SOCKET || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 8) != 0 || getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::fprintf(stderr, "pipe-relay: cannot listen on loopback (error %d)\n", WSAGetLastError());
    return 1;
  }
  std::printf("PORT %u\n", ntohs(addr.sin_port));
  std::fflush(stdout);
  for (;;) {
    SOCKET s = accept(listener, nullptr, nullptr);
    if (s == INVALID_SOCKET) return 1;
    std::thread(relay, s).detach();
  }
}
