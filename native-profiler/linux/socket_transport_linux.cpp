// The stream's Unix domain socket on Linux: non-blocking, close-on-exec (children of the
// target must not inherit it), no SIGPIPE when the workstation goes away.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

  bool peer_finished() override {
    // The reader never sends data; a zero-byte read is its shutdown(SHUT_WR).
    uint8_t b = 0;
    const ssize_t n = ::recv(fd_, &b, 1, MSG_DONTWAIT | MSG_PEEK);
    return n == 0;
  }

 private:
  int fd_;
};

}  // namespace

std::unique_ptr<Transport> connect_transport(const std::string& path) {
  sockaddr_un addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) return nullptr;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return nullptr;
  }
  const int sndbuf = 1 << 20;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<Transport>(new SocketTransport(fd));
}

}  // namespace clrscope
