// The stream's socket on Windows: loopback TCP (core/transport.h), or an AF_UNIX stream socket
// through Winsock (Windows 10 1803 and later); non-blocking and not inherited by the target's
// child processes. Windows has no SIGPIPE, so a vanished workstation is just an error code. A
// path naming a pipe (\\.\pipe\...) goes to the named-pipe transport instead: that is what
// Node listens on when given a path on Windows.
//
// Under Wine, TCP is the one that reaches a Linux collector: Wine's Winsock maps AF_INET onto
// the host's sockets, while its AF_UNIX connect reached neither the collector's Unix path nor
// its Z:\ form (Wine 8.0).
#include <winsock2.h>
// winsock2.h first: afunix.h and ws2tcpip.h build on its types.
#include <afunix.h>
#include <ws2tcpip.h>

#include <cstring>

#include "core/profiler_config.h"
#include "core/transport.h"
#include "windows/win_common.h"

namespace clrscope {
namespace {

bool winsock_ready() {
  // Started once and never cleaned up: WSACleanup would pull Winsock from under anyone else
  // in the process whose WSAStartup came after ours.
  static const bool ready = [] {
    WSADATA data;
    return WSAStartup(MAKEWORD(2, 2), &data) == 0;
  }();
  return ready;
}

bool names_pipe(const std::string& path) {
  if (path.size() < 9) return false;
  std::string head = path.substr(0, 9);
  for (char& c : head) {
    if (c == '/') c = '\\';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return head == "\\\\.\\pipe\\" || head == "\\\\?\\pipe\\";
}

class SocketTransport final : public Transport {
 public:
  explicit SocketTransport(SOCKET s) : s_(s) {}
  ~SocketTransport() override { closesocket(s_); }

  Status send(const uint8_t* data, size_t size, size_t* sent) override {
    *sent = 0;
    while (*sent < size) {
      const size_t left = size - *sent;
      const int chunk = left > (1u << 30) ? (1 << 30) : static_cast<int>(left);
      const int n = ::send(s_, reinterpret_cast<const char*>(data + *sent), chunk, 0);
      if (n > 0) {
        *sent += static_cast<size_t>(n);
        continue;
      }
      if (n == SOCKET_ERROR) {
        const int err = WSAGetLastError();
        if (err == WSAEINTR) continue;
        if (err == WSAEWOULDBLOCK) return Status::kWouldBlock;
      }
      return Status::kBroken;
    }
    return Status::kSent;
  }

  bool wait_writable(int timeout_ms) override {
    fd_set writable;
    FD_ZERO(&writable);
    FD_SET(s_, &writable);
    timeval tv;
    tv.tv_sec = timeout_ms / 1000;
    tv.tv_usec = (timeout_ms % 1000) * 1000;
    // The first argument is ignored by Winsock.
    return select(0, nullptr, &writable, nullptr, &tv) > 0 && FD_ISSET(s_, &writable);
  }

  void finish() override { shutdown(s_, SD_SEND); }

  bool peer_finished() override {
    // A zero-byte read is the reader's shutdown of its sending side (the socket is
    // non-blocking, so an empty one answers WSAEWOULDBLOCK). The commands reader calls
    // receive() earlier in the same tick; what it found stands, so the tick costs one recv,
    // not two (under Wine each is a wineserver round trip, and the server also carries every
    // suspension, ours and the GC's).
    if (peer_closed_) return true;
    if (received_since_check_) {
      received_since_check_ = false;
      return false;
    }
    char b = 0;
    peer_closed_ = ::recv(s_, &b, 1, MSG_PEEK) == 0;
    return peer_closed_;
  }

  bool receives() const override { return true; }

  Received receive(uint8_t* buffer, size_t size, size_t* got) override {
    *got = 0;
    const int chunk = size > (1u << 30) ? (1 << 30) : static_cast<int>(size);
    const int n = ::recv(s_, reinterpret_cast<char*>(buffer), chunk, 0);
    received_since_check_ = true;
    if (n > 0) {
      *got = static_cast<size_t>(n);
      return Received::kData;
    }
    if (n == 0) peer_closed_ = true;
    return n == 0 ? Received::kClosed : Received::kNone;
  }

 private:
  SOCKET s_;
  // Sampler thread only, like every call on a transport.
  bool peer_closed_ = false;
  bool received_since_check_ = false;
};

// Writes all of `size` bytes on a still-blocking socket; false on any failure or short write.
bool send_all(SOCKET s, const uint8_t* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const int n = ::send(s, reinterpret_cast<const char*>(data + done), static_cast<int>(size - done), 0);
    if (n == SOCKET_ERROR && WSAGetLastError() == WSAEINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

SOCKET connect_unix(const std::string& path) {
  sockaddr_un addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  // UTF-8, as Windows expects sun_path to be; one byte stays free for the terminator.
  if (path.empty() || path.size() >= sizeof addr.sun_path) return INVALID_SOCKET;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const SOCKET s = WSASocketW(AF_UNIX, SOCK_STREAM, 0, nullptr, 0, WSA_FLAG_NO_HANDLE_INHERIT);
  if (s == INVALID_SOCKET) return s;
  if (connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    closesocket(s);
    return INVALID_SOCKET;
  }
  return s;
}

SOCKET connect_tcp(const TcpEndpoint& endpoint, const uint8_t* secret) {
  if (secret == nullptr) return INVALID_SOCKET;
  sockaddr_in addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(endpoint.port);
  std::memcpy(&addr.sin_addr, endpoint.address, sizeof endpoint.address);
  const SOCKET s = WSASocketW(AF_INET, SOCK_STREAM, IPPROTO_TCP, nullptr, 0, WSA_FLAG_NO_HANDLE_INHERIT);
  if (s == INVALID_SOCKET) return s;
  // The sampler sends one batch per tick; Nagle's wait would only add latency to the last one.
  const BOOL one = TRUE;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char*>(&one), sizeof one);
  // Loopback connects or refuses at once; the secret fits any send buffer, so neither blocks.
  if (connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || !send_all(s, secret, kSecretBytes)) {
    closesocket(s);
    return INVALID_SOCKET;
  }
  return s;
}

}  // namespace

std::unique_ptr<Transport> connect_transport(const std::string& endpoint, const uint8_t* secret) {
  if (names_pipe(endpoint)) return win::connect_named_pipe(endpoint);
  TcpEndpoint tcp{};
  const EndpointKind kind = parse_endpoint(endpoint, &tcp);
  if (kind == EndpointKind::kBadTcp || !winsock_ready()) return nullptr;
  const SOCKET s = kind == EndpointKind::kTcp ? connect_tcp(tcp, secret) : connect_unix(endpoint);
  if (s == INVALID_SOCKET) return nullptr;
  const int sndbuf = 1 << 20;
  setsockopt(s, SOL_SOCKET, SO_SNDBUF, reinterpret_cast<const char*>(&sndbuf), sizeof sndbuf);
  u_long nonblocking = 1;
  if (ioctlsocket(s, FIONBIO, &nonblocking) != 0) {
    closesocket(s);
    return nullptr;
  }
  return std::unique_ptr<Transport>(new SocketTransport(s));
}

}  // namespace clrscope
