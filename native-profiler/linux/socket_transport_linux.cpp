// The stream's socket on Linux: a Unix domain socket, or loopback TCP (core/transport.h);
// non-blocking, close-on-exec (children of the target must not inherit it), no SIGPIPE when the
// workstation goes away.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/profiler_config.h"
#include "core/transport.h"

namespace clrscope {
namespace {

class SocketTransport final : public Transport {
 public:
  explicit SocketTransport(int fd) : fd_(fd) {}
  ~SocketTransport() override { close(fd_); }

  Status send(const uint8_t* data, size_t size, size_t* sent) override {
    *sent = 0;
    while (*sent < size) {
      const ssize_t n = ::send(fd_, data + *sent, size - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        *sent += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Status::kWouldBlock;
      return Status::kBroken;
    }
    return Status::kSent;
  }

  bool wait_writable(int timeout_ms) override {
    pollfd p{fd_, POLLOUT, 0};
    return poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLOUT);
  }

  void finish() override { shutdown(fd_, SHUT_WR); }

  bool peer_finished() override {
    // A zero-byte read is the reader's shutdown(SHUT_WR); command bytes it sent are taken by
    // receive() first, so a pending command never hides the shutdown for long.
    uint8_t b = 0;
    const ssize_t n = ::recv(fd_, &b, 1, MSG_DONTWAIT | MSG_PEEK);
    return n == 0;
  }

  bool receives() const override { return true; }

  Received receive(uint8_t* buffer, size_t size, size_t* got) override {
    *got = 0;
    for (;;) {
      const ssize_t n = ::recv(fd_, buffer, size, MSG_DONTWAIT);
      if (n > 0) {
        *got = static_cast<size_t>(n);
        return Received::kData;
      }
      if (n == 0) return Received::kClosed;
      if (errno == EINTR) continue;
      // EAGAIN: nothing yet; any other error is the send side's to find.
      return Received::kNone;
    }
  }

 private:
  int fd_;
};

// Writes all of `size` bytes on a still-blocking socket; false on any failure or short write.
bool send_all(int fd, const uint8_t* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

int connect_unix(const std::string& path) {
  sockaddr_un addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) return -1;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int connect_tcp(const TcpEndpoint& endpoint, const uint8_t* secret) {
  if (secret == nullptr) return -1;
  sockaddr_in addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(endpoint.port);
  std::memcpy(&addr.sin_addr, endpoint.address, sizeof endpoint.address);
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // The sampler sends one batch per tick; Nagle's wait would only add latency to the last one.
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // Loopback connects or refuses at once; the secret fits any send buffer, so neither blocks.
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || !send_all(fd, secret, kSecretBytes)) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::unique_ptr<Transport> connect_transport(const std::string& endpoint, const uint8_t* secret) {
  TcpEndpoint tcp{};
  int fd = -1;
  switch (parse_endpoint(endpoint, &tcp)) {
    case EndpointKind::kPath: fd = connect_unix(endpoint); break;
    case EndpointKind::kTcp: fd = connect_tcp(tcp, secret); break;
    case EndpointKind::kBadTcp: return nullptr;
  }
  if (fd < 0) return nullptr;
  const int sndbuf = 1 << 20;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<Transport>(new SocketTransport(fd));
}

}  // namespace clrscope
