// The stream's socket on Linux: a Unix domain socket, or loopback TCP (core/transport.h);
// non-blocking, close-on-exec (children of the target must not inherit it), no SIGPIPE when the
// workstation goes away, kept at a high number and used only while that number still names it
// (core/own_descriptor.h).
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "core/own_descriptor.h"
#include "core/profiler_config.h"
#include "core/transport.h"

namespace clrscope {
namespace {

class SocketTransport final : public Transport {
 public:
  SocketTransport(int fd, std::string endpoint, const uint8_t* secret) : fd_(fd), endpoint_(std::move(endpoint)) {
    if (secret != nullptr) std::memcpy(secret_, secret, sizeof secret_);
    has_secret_ = secret != nullptr;
  }
  ~SocketTransport() override { fd_.close(); }

  // Every call on the socket is preceded by a check that its number still names it
  // (core/own_descriptor.h): the program may have closed it and reused the number.
  Status send(const uint8_t* data, size_t size, size_t* sent) override {
    *sent = 0;
    while (*sent < size) {
      if (!mine()) return Status::kLost;
      const ssize_t n = ::send(fd_.fd(), data + *sent, size - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);
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
    if (!mine()) return false;
    pollfd p{fd_.fd(), POLLOUT, 0};
    return poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLOUT);
  }

  void finish() override {
    if (mine()) shutdown(fd_.fd(), SHUT_WR);
  }

  bool peer_finished() override {
    if (!mine()) return false;
    // A zero-byte read is the reader's shutdown(SHUT_WR); command bytes it sent are taken by
    // receive() first, so a pending command never hides the shutdown for long.
    uint8_t b = 0;
    const ssize_t n = ::recv(fd_.fd(), &b, 1, MSG_DONTWAIT | MSG_PEEK);
    return n == 0;
  }

  bool receives() const override { return true; }

  Received receive(uint8_t* buffer, size_t size, size_t* got) override {
    *got = 0;
    for (;;) {
      if (!mine()) return Received::kLost;
      const ssize_t n = ::recv(fd_.fd(), buffer, size, MSG_DONTWAIT);
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

  TransportLoss loss() const override { return loss_; }

  std::unique_ptr<Transport> reconnect() override {
    return connect_transport(endpoint_, has_secret_ ? secret_ : nullptr);
  }

 private:
  bool mine() {
    if (fd_.owned()) return true;
    if (loss_.how == 0) {
      loss_.descriptor = fd_.fd();
      loss_.how = static_cast<uint8_t>(fd_.state());
    }
    return false;
  }

  OwnDescriptor fd_;
  std::string endpoint_;
  uint8_t secret_[kSecretBytes] = {};
  bool has_secret_ = false;
  TransportLoss loss_;
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
  const int fd = platform::move_descriptor_high(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
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
  const int fd = platform::move_descriptor_high(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
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
  return std::unique_ptr<Transport>(new SocketTransport(fd, endpoint, secret));
}

}  // namespace clrscope
